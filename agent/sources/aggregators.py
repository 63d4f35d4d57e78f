"""The aggregators' routes as sources: which routes, under which source id, and which direct
fetchers they replace.

A route's source is named for the platform it serves (`weibo`, or `36kr` for a platform we do not
know), so when `dailyhot` (or `newsnow`) serves Weibo the direct Weibo fetcher is left out and no
Weibo item is held twice; the first aggregator named serves a platform two of them offer.
DailyHotApi's routes default to every route its `/all` lists, asked once when the sources are built;
an instance that does not answer then leaves one `dailyhot` source, disabled with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from ..errors import SourceError
from .aggregated import AggregatedRoute, RouteOptions, platform_id
from .base import Source
from .dailyhot import DailyHot, DailyHotOptions, parse_route_list
from .newsnow import DEFAULT_SOURCES, Newsnow, NewsnowOptions

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["AGGREGATORS", "aggregator_sources", "without_replaced"]

AGGREGATORS: tuple[type[AggregatedRoute], ...] = (DailyHot, Newsnow)
LIST_TIMEOUT_S = 5.0

log = logging.getLogger("trendlens.sources")


def aggregator_sources(cls: type[AggregatedRoute], settings: Settings, direct: Mapping[str, type[Source]], *,
                       transport: httpx.BaseTransport | None = None) -> list[AggregatedRoute]:
    """One source per configured route of `cls`; its placeholder (disabled, saying why) when none."""
    options: RouteOptions = cls.options_type.from_settings(settings, cls.name)  # type: ignore[assignment]
    if not options.base_url:
        return [cls(options)]
    if cls is DailyHot:
        assert isinstance(options, DailyHotOptions)
        routes: list[tuple[str, str | None]] = [(r, None) for r in settings.platforms.dailyhot_routes]
        if not routes:
            try:
                routes = [(r, None) for r in _list_routes(options.base_url, settings, transport)]
            except (httpx.HTTPError, SourceError) as exc:
                # the URL may hold credentials: the reason names the path, never the whole URL
                reason = (f"could not list DailyHotApi's routes at /all ({type(exc).__name__}); "
                          "set TRENDLENS_DAILYHOT_ROUTES, or restart once the instance answers")
                log.warning("dailyhot: %s", reason)
                return [cls(replace(options, unavailable=reason))]
    else:
        assert isinstance(options, NewsnowOptions)
        written = settings.platforms.newsnow_sources or list(DEFAULT_SOURCES)
        routes = [(r.partition("=")[0].strip(), r.partition("=")[2].strip() or None) for r in written]
    made: dict[str, AggregatedRoute] = {}
    for route, label in routes:
        platform = cls.known.get(route) or platform_id(route)
        if not platform or platform in made:
            continue
        known = direct.get(platform) if platform in cls.known.values() else None
        interval = settings.fetch.interval_overrides.get(platform, known.interval_s if known else None)
        made[platform] = cls(replace(options, route=route, platform=platform, label=label, interval_s=interval,
                                     lang=known.lang if known else None))
    return list(made.values()) or [cls(replace(options, unavailable=f"{cls.title} lists no route"))]


def without_replaced(sources: list[Source]) -> list[Source]:
    """Each platform fetched once: an aggregator's route before the direct fetcher, the first
    aggregator's before a later one's."""
    served = {s.name for s in sources if isinstance(s, AggregatedRoute) and s.options.route}
    seen: set[str] = set()
    kept: list[Source] = []
    for source in sources:
        routed = isinstance(source, AggregatedRoute) and source.options.route
        if source.name in seen or (source.name in served and not routed):
            continue
        seen.add(source.name)
        kept.append(source)
    return kept


def _list_routes(base_url: str, settings: Settings, transport: httpx.BaseTransport | None) -> list[str]:
    url = f"{base_url}/all"
    if not urlsplit(url).hostname:
        raise httpx.InvalidURL("no host")
    with httpx.Client(transport=transport, timeout=min(LIST_TIMEOUT_S, settings.fetch.timeout_s),
                      headers={"User-Agent": settings.fetch.user_agent, "Accept": "application/json"},
                      follow_redirects=False) as client:
        # streamed and cut at the size cap as it arrives: an instance answering without end holds no
        # more than the cap in memory (the cut body is then not JSON: a parse error, one line)
        with client.stream("GET", url) as response:
            response.raise_for_status()
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk[:settings.fetch.max_body_bytes - len(body)]
                if len(body) >= settings.fetch.max_body_bytes:
                    break
        return parse_route_list(bytes(body))
