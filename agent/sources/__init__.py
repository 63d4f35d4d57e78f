"""The registry of trend sources: one visible tuple, no discovery magic."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from ..registry import Registry
from .aggregators import AGGREGATORS, aggregator_sources, without_replaced
from .baidu import Baidu
from .base import Endpoint, Source, SourceOptions
from .bilibili import Bilibili
from .dailyhot import DailyHot
from .douyin import Douyin
from .feed import Feed, feed_sources
from .fetcher import Fetcher
from .github_trending import GithubTrending
from .google_trends import GoogleTrends
from .hackernews import HackerNews
from .newsnow import Newsnow
from .reddit import Reddit
from .tieba import Tieba
from .toutiao import Toutiao
from .v2ex import V2ex
from .weibo import Weibo
from .wikipedia import Wikipedia
from .zhihu import Zhihu

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["AGGREGATOR_NAMES", "REGISTRY", "Endpoint", "Fetcher", "Source", "SourceOptions", "build_sources",
           "source_class"]

# The one registry of sources, a second of one name refused; order is the display order in `trendlens sources`.
REGISTRY: Registry[type[Source]] = Registry("source", (
    (cls.name, cls)
    for cls in (
        Weibo,
        Zhihu,
        Baidu,
        Douyin,
        Bilibili,
        Toutiao,
        Tieba,
        V2ex,
        HackerNews,
        Reddit,
        GoogleTrends,
        GithubTrending,
        Wikipedia,
        Feed,
        DailyHot,
        Newsnow,
    )
))
# Readers of other sites' lists, not platforms: each of their routes is a source named for its platform.
AGGREGATOR_NAMES: tuple[str, ...] = tuple(cls.name for cls in AGGREGATORS)


def source_class(name: str) -> type[Source]:
    """The source registered as `name`; an unknown name lists the valid ones."""
    return REGISTRY[name]


def build_sources(settings: Settings, names: list[str] | None = None, *,
                  transport: httpx.BaseTransport | None = None) -> list[Source]:
    """Instantiate the enabled sources (all registered ones when none are named).

    `feed` is the generic parser; the user's configured feeds (TRENDLENS_FEEDS) each
    become a source of their own, named after the feed. An aggregator (`dailyhot`, `newsnow`)
    becomes one source per route, and a platform a route serves is not fetched directly too
    (`aggregators.without_replaced`); `transport` answers DailyHotApi's route list (tests).
    Each source gets its own options.
    """
    wanted = names or settings.fetch.sources or list(REGISTRY)
    feeds = {f.name: f for f in feed_sources(settings)}
    sources: list[Source] = []
    routes: list[Source] = []  # before the direct fetchers, so that they serve their platforms
    for name in wanted:
        if name == "feed":
            sources.extend(feeds.values())
        elif name in feeds:
            sources.append(feeds[name])
        elif name in AGGREGATOR_NAMES:
            if not (names or settings.fetch.sources) and not getattr(settings.platforms, f"{name}_url", None):
                continue  # "every source" means every usable one: an aggregator needs its instance's URL
            cls = source_class(name)
            assert issubclass(cls, AGGREGATORS)
            routes.extend(aggregator_sources(cls, settings, REGISTRY, transport=transport))
        else:
            sources.append(source_class(name).from_settings(settings))
    return without_replaced(routes + sources)
