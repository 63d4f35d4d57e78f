"""Any RSS 2.0 / Atom / JSON Feed the user configures in `feeds` (`TRENDLENS_FEEDS`).

One `Feed` instance per configured feed (see `feed_sources`); its name, interval and
domains come from the config. Built without a config (`trendlens parse feed FILE`) it
only parses. XML with a DOCTYPE/ENTITY declaration is refused (entity-expansion attacks).

Every XML body from the network goes through `parse_xml` (defusedxml, DTDs forbidden) first;
RSS and Atom items are then read by `feedparser`, which knows the feed versions, namespaces
(dc:, slash:, content:) and date formats found in the wild.
"""

from __future__ import annotations

import html
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import defusedxml
import defusedxml.ElementTree as SafeET
import feedparser

from ..errors import ParseError
from ..models import Lang, Topic, printable
from .base import Endpoint, Source, SourceOptions, decode_text, ensure_not_blocked, load_json

if TYPE_CHECKING:
    from ..settings import FeedConfig, Settings

__all__ = ["Feed", "FeedOptions", "feed_sources", "parse_xml"]

ATOM = "{http://www.w3.org/2005/Atom}"
RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
_HTML_PAGE = re.compile(r"<html[\s>]", re.I)
_TAG = re.compile(r"<[^>]+>")
_ACCEPT = "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.8"


def _xml_text(body: bytes | str) -> str:
    """Decode honouring a UTF-16 BOM or the declared encoding; the DTD check then sees what expat sees."""
    if isinstance(body, str):
        return body
    if body[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return body.decode("utf-16", errors="replace")
    declared = re.match(rb"\s*<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)", body)
    if declared and declared.group(1).lower() not in (b"utf-8", b"utf8"):
        try:
            return body.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_text(body)


def parse_xml(source: str, body: bytes | str, url: str | None = None) -> ET.Element:
    """Parse an XML body safely: HTML pages are blocked/parse errors, DTDs are refused."""
    text = _xml_text(body).strip()
    if not text:
        raise ParseError(source, "empty body where XML was expected", url=url)
    head = text[:4000]
    if _HTML_PAGE.search(head) and not re.search(r"<(rss|feed|rdf:RDF)[\s>]", head):
        ensure_not_blocked(source, text, url)
        raise ParseError(source, "got an HTML page where XML was expected", url=url)
    # defusedxml refuses the DOCTYPE before any entity could expand (billion laughs) or
    # reach outside (external entities); stdlib ElementTree is never fed network bytes.
    try:
        return SafeET.fromstring(text, forbid_dtd=True)
    except defusedxml.DefusedXmlException:
        raise ParseError(source, "refusing XML with a DOCTYPE/ENTITY declaration (entity-expansion risk)",
                         url=url) from None
    except (ET.ParseError, SafeET.ParseError) as exc:  # distinct classes in defusedxml 0.7.0
        raise ParseError(source, f"malformed XML ({exc})", url=url) from None


def plain(text: str | None, limit: int = 280) -> str | None:
    """Markup-free, whitespace-collapsed text for summaries, without control characters."""
    if not text:
        return None
    flat = " ".join(printable(html.unescape(_TAG.sub(" ", text))).split())
    return flat[:limit] or None


def _lang(code: str | None) -> Lang | None:
    base = (code or "").strip().lower()[:2]
    return base if base in ("zh", "en", "ja") else None  # type: ignore[return-value]


def _http(link: str | None) -> str | None:
    link = (link or "").strip()
    parts = urlsplit(link)
    return link if parts.scheme in ("http", "https") and parts.hostname and "@" not in parts.netloc else None


@dataclass(frozen=True, kw_only=True)
class FeedOptions(SourceOptions):
    config: FeedConfig | None = None  # one entry of TRENDLENS_FEEDS; None: a parser only

    @classmethod
    def for_feed(cls, settings: Settings, config: FeedConfig) -> FeedOptions:
        return replace(cls.from_settings(settings, config.name), config=config)


class Feed(Source):
    name = "feed"
    title = "RSS / Atom / JSON Feed"
    lang = "other"
    interval_s = 900
    replay = "rss.xml"
    options_type = FeedOptions
    options: FeedOptions

    def __init__(self, options: FeedOptions | None = None) -> None:
        super().__init__(options)
        self.config = config = self.options.config
        if config is not None:
            self.name = config.name  # type: ignore[misc]
            self.interval_s = config.interval_s  # type: ignore[misc]
            host = urlsplit(config.url).hostname
            self.domains = (host.lower(),) if host else ()  # type: ignore[misc]

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint(self.config.url, headers={"Accept": _ACCEPT})] if self.config else []

    def disabled_reason(self, *, replaying: bool = False) -> str | None:
        return None if self.config else "no feed URL configured (add one under `feeds` in the settings)"

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        if decode_text(body[:200]).lstrip().startswith(("{", "[")):
            return self._json_feed(load_json(self.name, body, url), url)
        root = parse_xml(self.name, body, url)  # hardened well-formedness and DTD gate
        if root.tag not in (ATOM + "feed", "rss", RDF + "RDF"):
            raise ParseError(self.name, f"unknown feed root <{root.tag}>: expected RSS, Atom or JSON Feed",
                             url=url)
        if root.tag == "rss" and root.find("channel") is None:
            raise ParseError(self.name, "RSS without a <channel>", url=url)
        # A stream, never bytes: feedparser tries bytes as a local file path first. Relative links
        # inside summaries need no resolving: summaries are flattened to plain text.
        return self._entries(feedparser.parse(io.BytesIO(body), resolve_relative_uris=False), url)

    def _make(self, rank: int, *, item_id: Any, title: str | None, text: str | None, link: str | None,
              lang: Lang | None, extra: dict[str, Any]) -> Topic | None:
        title = (title or "").strip() or (plain(text, 120) or "")
        if not title:
            return None
        return self.topic(item_id=item_id or link, title=title, summary=plain(text), rank=rank,
                          url=_http(link), lang=(self.config.lang if self.config else None) or lang,
                          extra={k: v for k, v in extra.items() if v not in (None, "", [])})

    def _collect(self, made: list[Topic | None], total: int, url: str | None) -> list[Topic]:
        topics = [t for t in made if t is not None]
        if total and not topics:
            raise ParseError(self.name, "no feed item had a title or text", url=url)
        return topics

    def _entries(self, parsed: Any, url: str | None) -> list[Topic]:
        lang = _lang(parsed.feed.get("language"))
        made = []
        for i, entry in enumerate(parsed.entries, 1):
            content = entry.get("content") or [{}]
            made.append(self._make(
                i, item_id=(entry.get("id") or "").strip(), title=entry.get("title"),
                text=entry.get("summary") or content[0].get("value"), link=entry.get("link"), lang=lang,
                extra={"published": entry.get("published") or entry.get("updated"),
                       "author": entry.get("author"),
                       "categories": [t.get("term") for t in entry.get("tags", []) if t.get("term")],
                       "comments_url": entry.get("comments"), "comments": entry.get("slash_comments")},
            ))
        return self._collect(made, len(parsed.entries), url)

    def _json_feed(self, data: Any, url: str | None) -> list[Topic]:
        version = data.get("version") if isinstance(data, dict) else None
        if not (isinstance(version, str) and version.startswith("https://jsonfeed.org/version/")):
            raise ParseError(self.name, "JSON without a JSON Feed 'version' (https://jsonfeed.org/version/1.1)",
                             url=url)
        items = data.get("items")
        if not isinstance(items, list):
            raise ParseError(self.name, "JSON Feed without an 'items' array", url=url)
        lang = _lang(data.get("language"))
        made: list[Topic | None] = []
        for i, item in enumerate(items, 1):
            if not isinstance(item, dict):
                made.append(None)
                continue
            author = item.get("author")
            authors = item.get("authors") or ([author] if isinstance(author, dict) else [])
            made.append(self._make(
                i, item_id=item.get("id"), title=item.get("title"),
                text=item.get("summary") or item.get("content_text") or item.get("content_html"),
                link=item.get("url") or item.get("external_url"), lang=_lang(item.get("language")) or lang,
                extra={"published": item.get("date_published"), "tags": item.get("tags"),
                       "author": next((a.get("name") for a in authors if isinstance(a, dict)), None)},
            ))
        return self._collect(made, len(items), url)


def feed_sources(settings: Settings) -> list[Feed]:
    """One `Feed` source per entry of `TRENDLENS_FEEDS`."""
    return [Feed(FeedOptions.for_feed(settings, config)) for config in settings.fetch.feeds]
