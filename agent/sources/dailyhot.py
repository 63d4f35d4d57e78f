"""DailyHotApi (imsyy/DailyHotApi): an aggregator people self-host, one route per platform.

Each configured route is a source of its own (`dailyhot_sources`). A route for a platform TrendLens
knows (`KNOWN_ROUTES`) yields that platform's topics under its usual source id, and the registry then
drops that platform's direct fetcher (`build_sources`), so no platform is listed twice; any other
route is a platform registered at run time under the route's own `title` (agent/platforms.py).

A route answers `{code: 200, name, title, type, link, total, updateTime, data: [...]}`, each item
`{id, title, desc, hot, url, mobileUrl, timestamp, author, cover}`; `/all` lists the routes as
`{code: 200, count, routes: [{name, path}]}`. `hot` is absent on several routes (its Weibo route
leaves it out): a missing or non-numeric `hot` is no heat, never 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Self
from urllib.parse import quote

from ..errors import ParseError
from ..models import Topic
from ..platforms import aggregator_ids
from .aggregated import AggregatedRoute, RouteOptions, aggregated_topic, http_link, item_heat, route_platform
from .base import Endpoint, check_envelope, load_json

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["KNOWN_ROUTES", "DailyHot", "DailyHotOptions", "parse_route_list"]

# DailyHotApi's route name → our source id, for the platforms we also fetch directly.
KNOWN_ROUTES: dict[str, str] = aggregator_ids("dailyhot")


@dataclass(frozen=True, kw_only=True)
class DailyHotOptions(RouteOptions):
    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), base_url=settings.platforms.dailyhot_url)


class DailyHot(AggregatedRoute):
    name = "dailyhot"
    title = "DailyHotApi"
    setting = "TRENDLENS_DAILYHOT_URL"
    known = KNOWN_ROUTES
    options_type = DailyHotOptions
    options: DailyHotOptions

    def endpoints(self) -> list[Endpoint]:
        if not (self.options.base_url and self.options.route):
            return []
        # `limit` is DailyHotApi's own cap; our parser caps again whatever an instance answers
        return [Endpoint(f"{self.options.base_url}/{quote(self.options.route, safe='')}?limit=100",
                         headers={"Accept": "application/json"})]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object with a 'data' list", url=url)
        check_envelope(self.name, data, url, code_key="code", ok=(200, "200"))
        items = data.get("data")
        if not isinstance(items, list):
            raise ParseError(self.name, "missing 'data' list in the route's answer", url=url)
        platform = self.claim(route_platform(data.get("name"), self.known, fallback=self.name),
                              label=data.get("title"), link=data.get("link"))
        topics: list[Topic] = []
        for item in items[:self.max_items]:
            if not isinstance(item, dict):
                continue
            link = http_link(item.get("url")) or http_link(item.get("mobileUrl"))
            heat, heat_text = item_heat(item.get("hot"))
            topic = aggregated_topic(self, platform, rank=len(topics) + 1, item_id=item.get("id") or link,
                                     title=item.get("title"), summary=item.get("desc"), url=link, heat=heat,
                                     heat_text=heat_text,
                                     extra={"via": "dailyhot", "timestamp": item.get("timestamp"),
                                            "author": item.get("author")})
            if topic is not None:
                topics.append(topic)
        if items and not topics:
            raise ParseError(self.name, "no item in 'data' had a usable 'title'", url=url)
        return topics


def parse_route_list(body: bytes, url: str | None = None) -> list[str]:
    """The route names `/all` lists as served (an entry whose `path` is null is switched off)."""
    data = load_json(DailyHot.name, body, url)
    routes = data.get("routes") if isinstance(data, dict) else None
    if not isinstance(routes, list):
        raise ParseError(DailyHot.name, "missing 'routes' list in /all", url=url)
    names = [r.get("name") for r in routes if isinstance(r, dict) and r.get("path")]
    return list(dict.fromkeys(n for n in names if isinstance(n, str) and n.strip()))

