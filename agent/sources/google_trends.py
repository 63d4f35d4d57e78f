"""Google Trends "trending now" RSS (RSS 2.0 + the ht: namespace) for `TRENDLENS_GOOGLE_TRENDS_GEO`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Self
from urllib.parse import parse_qs, quote, urlsplit

from ..errors import ParseError
from ..models import Lang, Topic, detect_lang
from .base import Endpoint, Source, SourceOptions
from .feed import _http, parse_xml, plain

if TYPE_CHECKING:
    from ..settings import Settings

HT = "{https://trends.google.com/trending/rss}"


@dataclass(frozen=True, kw_only=True)
class GoogleTrendsOptions(SourceOptions):
    geo: str = "US"  # TRENDLENS_GOOGLE_TRENDS_GEO: the country whose list is fetched

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), geo=settings.platforms.google_trends_geo)


class GoogleTrends(Source):
    name = "google_trends"
    title = "Google Trends (trending now)"
    lang = "en"
    interval_s = 1800
    domains = ("google.com",)
    replay = "trending-rss.xml"
    options_type = GoogleTrendsOptions
    options: GoogleTrendsOptions

    @property
    def geo(self) -> str:
        return (self.options.geo or "US").upper()

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint(f"https://trends.google.com/trending/rss?geo={quote(self.geo)}",
                         headers={"Accept": "application/rss+xml, application/xml;q=0.9"})]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
        if text.lstrip().startswith((")]}'", "{")):
            # the retired dailytrends JSON API ()]}'-prefixed)
            raise ParseError(self.name, "got the retired dailytrends JSON, not the trending RSS "
                             "(rss/channel/item)", url=url)
        root = parse_xml(self.name, body, url)
        channel = root.find("channel") if root.tag == "rss" else None
        if channel is None:
            raise ParseError(self.name, f"missing rss/channel in the response (root is <{root.tag}>)",
                             url=url)
        items = channel.findall("item")
        if items and not any(item.find(HT + "approx_traffic") is not None for item in items):
            raise ParseError(self.name, "missing ht:approx_traffic in every item (namespace changed?)",
                             url=url)
        geo = self._geo(channel.findtext("link"), url)
        page = f"https://trends.google.com/trending?geo={quote(geo)}"
        topics: list[Topic] = []
        for item in items:
            title = (item.findtext("title") or "").strip()
            if not title:
                continue
            news = [{"title": n.findtext(HT + "news_item_title"), "url": n.findtext(HT + "news_item_url"),
                     "source": n.findtext(HT + "news_item_source"),
                     "snippet": plain(n.findtext(HT + "news_item_snippet"))}
                    for n in item.findall(HT + "news_item")]
            first = news[0] if news else {}
            news_url = _http(first.get("url"))
            traffic = (item.findtext(HT + "approx_traffic") or "").strip() or None
            lang = self._lang(title, geo)
            if lang in ("en", "other"):
                # "snowman" on the JP list is a Japanese topic: trust the news headline's script
                headlines = (self._lang(n["title"] or "", geo) for n in news)
                lang = next((x for x in headlines if x in ("ja", "zh")), lang)
            topics.append(self.topic(
                item_id=None, title=title, rank=len(topics) + 1, heat_text=traffic,
                summary=plain(first.get("snippet")) or plain(first.get("title")),
                # the link shown is Google's own explore page: news links point at arbitrary hosts
                # and are kept in extra for whoever vets them
                url=f"https://trends.google.com/trends/explore?q={quote(title)}&geo={quote(geo)}" if title else page,
                lang=lang,
                extra={"geo": geo, "news_url": news_url, "news_source": first.get("source"),
                       "news_title": first.get("title"), "pub_date": item.findtext("pubDate"),
                       "picture": item.findtext(HT + "picture"), "news": news[:3]},
            ))
        return topics

    @staticmethod
    def _lang(text: str, geo: str) -> Lang:
        guessed = detect_lang(text)
        # kanji-only Japanese ("西堀") reads as Han script: on a Japanese list it is Japanese
        return "ja" if guessed == "zh" and geo == "JP" else guessed

    def _geo(self, link: str | None, url: str | None) -> str:
        for candidate in (link, url):
            values = parse_qs(urlsplit(candidate or "").query).get("geo")
            if values and values[0].isalnum():
                return values[0].upper()
        return self.geo
