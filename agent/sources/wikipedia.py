"""Wikipedia's most-viewed articles of yesterday (Wikimedia pageviews API, `TRENDLENS_WIKIPEDIA_PROJECT`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

from .. import __version__
from ..errors import ParseError, UpstreamError
from ..models import Lang, Topic, utcnow
from ..settings import DEFAULT_CONTACT
from .base import Endpoint, Source, SourceOptions, dig, load_json

if TYPE_CHECKING:
    from ..settings import Settings

API = "https://wikimedia.org/api/rest_v1/metrics/pageviews/top/{project}/all-access/{day:%Y/%m/%d}"
# Navigation and meta pages that top every list but are not trends.
_SKIP_PREFIXES = ("Special:", "Wikipedia:", "Portal:", "File:", "Talk:", "User:", "Help:", "Category:",
                  "Template:", "MediaWiki:", "Module:", "Draft:", "Wikipedia_talk:", "User_talk:")
_URL_SAFE = "()_,!:-.~"
_SKIP_EXACT = {"Main_Page", "-", "Wikipedia:首页", "Undefined", "Main Page"}


@dataclass(frozen=True, kw_only=True)
class WikipediaOptions(SourceOptions):
    project: str = "en.wikipedia"  # TRENDLENS_WIKIPEDIA_PROJECT, e.g. zh.wikipedia
    contact: str = DEFAULT_CONTACT  # TRENDLENS_CONTACT: Wikimedia's UA policy asks for a way to reach us

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), project=settings.platforms.wikipedia_project,
                       contact=settings.fetch.contact)


class Wikipedia(Source):
    name = "wikipedia"
    title = "Wikipedia most viewed (yesterday)"
    lang = "en"
    interval_s = 21600
    domains = ("wikipedia.org",)
    replay = "top.json"
    options_type = WikipediaOptions
    options: WikipediaOptions

    def __init__(self, options: WikipediaOptions | None = None, clock: Callable[[], datetime] = utcnow) -> None:
        super().__init__(options)
        self.clock = clock

    @property
    def project(self) -> str:
        return self.options.project.strip().lower() or "en.wikipedia"

    def endpoints(self) -> list[Endpoint]:
        # Wikimedia's UA policy: identify the client and give a way to contact its operator.
        ua = f"TrendLens/{__version__} ({self.options.contact})"
        headers = {"User-Agent": ua, "Api-User-Agent": ua, "Accept": "application/json"}
        today = self.clock().date()
        # yesterday's list appears during the day; the day before is the fallback when it 404s
        return [Endpoint(API.format(project=quote(self.project), day=today - timedelta(days=back)),
                         name=f"{back} days back", headers=headers) for back in (1, 2)]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if isinstance(data, dict) and "items" not in data and ("type" in data or "detail" in data):
            kind = str(data.get("type", "")).rsplit("/", 1)[-1]
            detail = " ".join(str(data.get(k) or "") for k in ("title", "detail")).strip()
            raise UpstreamError(self.name, f"Wikimedia API error {kind or 'unknown'}: {detail[:200]}",
                                url=url)
        articles = dig(self.name, data, "items.0.articles", url)
        top = data["items"][0]
        if not isinstance(articles, list):
            raise ParseError(self.name, "'items.0.articles' is not a list", url=url)
        project = str(top.get("project") or self.project)
        host = project if project.endswith(".org") else f"{project}.org"
        lang: Lang | None = {"en": "en", "zh": "zh", "ja": "ja"}.get(project.split(".", 1)[0])  # type: ignore[assignment]
        day = "-".join(str(top.get(k, "")) for k in ("year", "month", "day"))
        topics: list[Topic] = []
        for entry in articles:
            article = entry.get("article") if isinstance(entry, dict) else None
            if not isinstance(article, str) or not self._is_article(article):
                continue
            views: Any = entry.get("views", entry.get("views_ceil"))
            topics.append(self.topic(
                item_id=article, title=article.replace("_", " "), rank=len(topics) + 1,
                heat=views, heat_text=f"{views:,} views" if isinstance(views, int) else None,
                url=f"https://{host}/wiki/{quote(article, safe=_URL_SAFE)}", lang=lang,
                extra={"views": views, "platform_rank": entry.get("rank"), "project": project, "day": day},
            ))
        if articles and not topics and not any(isinstance(e, dict) and "article" in e for e in articles):
            raise ParseError(self.name, "no entry of 'items.0.articles' had an 'article'", url=url)
        return topics

    @staticmethod
    def _is_article(article: str) -> bool:
        return article not in _SKIP_EXACT and not article.startswith(_SKIP_PREFIXES)
