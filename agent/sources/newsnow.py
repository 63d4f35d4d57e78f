"""newsnow (ourongxing/newsnow): an aggregator people self-host, one source id per list.

Each configured id is a source of its own (`newsnow_sources` in the registry), as for DailyHotApi
(agent/sources/aggregated.py): a platform TrendLens knows keeps its usual source id and replaces its
direct fetcher; any other becomes a platform registered at run time. `GET /api/s?id=<id>` answers
`{status: "success" | "cache", id, updatedTime, items: [{id, title, url, mobileUrl, pubDate,
extra: {hover, info, date}}]}`; a bad id or a failing upstream is an HTTP 500 with
`{statusCode, message}`. The answer names no title of its own, so a platform we do not know is
labelled by the operator (`id=label` in TRENDLENS_NEWSNOW_SOURCES), else by its id.

`extra.info` is what newsnow prints beside a title: heat on hot lists ("85万", "综艺 850468"), a time
on timelines ("3小时前"); only the first is read as heat.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Self
from urllib.parse import quote

from ..errors import ParseError, UpstreamError
from ..models import Topic
from ..platforms import aggregator_ids
from .aggregated import AggregatedRoute, RouteOptions, aggregated_topic, http_link, item_heat, route_platform
from .base import Endpoint, load_json

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["DEFAULT_SOURCES", "KNOWN_SOURCES", "Newsnow", "NewsnowOptions"]

# newsnow's id → our source id. A main id redirects to its default sub-list (`bilibili` →
# `bilibili-hot-search`); both name the platform.
KNOWN_SOURCES: dict[str, str] = aggregator_ids("newsnow")
# Read when TRENDLENS_NEWSNOW_SOURCES is empty: the hot lists of the platforms we know (V2EX's
# newsnow list is its newest shares, not its hot topics, so the direct fetcher keeps it).
DEFAULT_SOURCES = ("weibo", "zhihu", "baidu", "douyin", "bilibili-hot-search", "toutiao", "tieba", "hackernews",
                   "github-trending-today")


@dataclass(frozen=True, kw_only=True)
class NewsnowOptions(RouteOptions):
    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), base_url=settings.platforms.newsnow_url)


class Newsnow(AggregatedRoute):
    name = "newsnow"
    title = "newsnow"
    setting = "TRENDLENS_NEWSNOW_URL"
    known = KNOWN_SOURCES
    options_type = NewsnowOptions
    options: NewsnowOptions

    def endpoints(self) -> list[Endpoint]:
        if not (self.options.base_url and self.options.route):
            return []
        return [Endpoint(f"{self.options.base_url}/api/s?id={quote(self.options.route, safe='')}",
                         headers={"Accept": "application/json"})]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object with an 'items' list", url=url)
        if data.get("error") or "statusCode" in data:
            raise UpstreamError(self.name, f"newsnow error {data.get('statusCode')!r}: "
                                           f"{str(data.get('message') or data.get('statusMessage') or '')[:200]}",
                                url=url)
        if data.get("status") not in ("success", "cache"):
            raise ParseError(self.name, f"unknown status {str(data.get('status'))[:40]!r} (success or cache)",
                             url=url)
        items = data.get("items")
        if not isinstance(items, list):
            raise ParseError(self.name, "missing 'items' list in the answer", url=url)
        platform = self.claim(route_platform(data.get("id"), self.known, fallback=self.name), label=None,
                              link=_first_link(items))
        topics: list[Topic] = []
        for item in items[:self.max_items]:
            if not isinstance(item, dict):
                continue
            found = item.get("extra")
            extra: dict[str, object] = found if isinstance(found, dict) else {}
            heat, heat_text = item_heat(extra.get("info"))
            link = http_link(item.get("url")) or http_link(item.get("mobileUrl"))
            topic = aggregated_topic(self, platform, rank=len(topics) + 1, item_id=item.get("id") or link,
                                     title=item.get("title"), summary=extra.get("hover"), url=link, heat=heat,
                                     heat_text=heat_text,
                                     extra={"via": "newsnow", "published": item.get("pubDate") or extra.get("date")})
            if topic is not None:
                topics.append(topic)
        if items and not topics:
            raise ParseError(self.name, "no item in 'items' had a usable 'title'", url=url)
        return topics


def _first_link(items: list[object]) -> str | None:
    """A platform's host, from its first linked item: newsnow names no home page in its answer."""
    return next((link for item in items[:5] if isinstance(item, dict) and (link := http_link(item.get("url")))), None)
