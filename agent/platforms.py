"""Every platform TrendLens reads, one record each: how captions, chat, the digest and MCP name it.

A question names a platform however the asker knows it ("知乎", "Zhihu", "HN", "B站"); an answer
names it in words a voice can read ("Hacker News", "微博"); a caption's meta line names it in as few
cells as a glasses display spares ("HN"). The keys are exactly the source registry's platform
names (the user's own feeds keep their names), and a test holds them to it.

An aggregator (DailyHotApi, newsnow) may serve a platform this table does not hold (36氪, 少数派):
`register_platform` adds it at run time under the aggregator route's own title, so every place that
names a platform reads it from here like the others. A built-in record is never replaced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = ["PLATFORMS", "Category", "Platform", "caption_label", "find_platform", "forget_platform", "heat_unit",
           "in_category", "known_platforms", "platform_name", "platform_record", "register_platform",
           "run_time_platforms", "weak_headline"]

Category = Literal["tech", "video"]


@dataclass(frozen=True, kw_only=True)
class Platform:
    source: str  # the source's registry name
    label: str  # the caption meta line's short name
    zh: str  # the name in a Chinese sentence
    en: str  # the name in an English sentence
    aliases: tuple[str, ...] = ()  # how a question may name it (matched case-blind, longest first)
    heat_unit_en: str = ""  # what an English heat number counts, where the platform says so
    # Titles that read badly as a headline ("owner/repo", "Super_Bowl_LIX" article names): a story
    # seen elsewhere too is worded by another platform's member.
    weak_headline: bool = False
    categories: tuple[Category, ...] = ()  # subjects it covers ("what's trending in tech?")
    domains: tuple[str, ...] = ()  # hosts its links live on, for a platform registered at run time
    run_time: bool = False  # registered by an aggregator's route, not written in this table
    # the ids an aggregator serves this platform's list under: (aggregator, its id), e.g. ("newsnow",
    # "bilibili-hot-search"); read through `aggregator_ids`
    aggregated_as: tuple[tuple[str, str], ...] = ()


# Order: the big lists first (chat suggestions follow it).
PLATFORMS: Mapping[str, Platform] = MappingProxyType({p.source: p for p in (
    Platform(source="weibo", label="微博", zh="微博", en="Weibo", aliases=("微博", "新浪微博", "weibo", "微博热搜"),
             aggregated_as=(("dailyhot", "weibo"), ("newsnow", "weibo"))),
    Platform(source="zhihu", label="知乎", zh="知乎", en="Zhihu", aliases=("知乎", "zhihu"),
             aggregated_as=(("dailyhot", "zhihu"), ("newsnow", "zhihu"))),
    Platform(source="tieba", label="贴吧", zh="贴吧", en="Tieba", aliases=("百度贴吧", "贴吧", "tieba"),
             aggregated_as=(("dailyhot", "tieba"), ("newsnow", "tieba"))),
    Platform(source="baidu", label="百度", zh="百度", en="Baidu", aliases=("百度", "baidu"),
             aggregated_as=(("dailyhot", "baidu"), ("newsnow", "baidu"))),
    Platform(source="douyin", label="抖音", zh="抖音", en="Douyin", aliases=("抖音", "douyin", "tiktok china"),
             categories=("video",),
             aggregated_as=(("dailyhot", "douyin"), ("newsnow", "douyin"))),
    Platform(source="bilibili", label="B站", zh="B站", en="Bilibili",
             aliases=("哔哩哔哩", "b站", "bilibili", "bili bili", "小破站"), categories=("video",),
             aggregated_as=(("dailyhot", "bilibili"), ("newsnow", "bilibili"), ("newsnow", "bilibili-hot-search"))),
    Platform(source="toutiao", label="头条", zh="头条", en="Toutiao", aliases=("今日头条", "头条", "toutiao"),
             aggregated_as=(("dailyhot", "toutiao"), ("newsnow", "toutiao"))),
    Platform(source="v2ex", label="V2EX", zh="V2EX", en="V2EX", aliases=("v2ex", "v站"), categories=("tech",),
             aggregated_as=(("dailyhot", "v2ex"), ("newsnow", "v2ex"), ("newsnow", "v2ex-share"))),
    Platform(source="hackernews", label="HN", zh="Hacker News", en="Hacker News",
             aliases=("hacker news", "hackernews", "hacker-news", "hn", "黑客新闻", "ycombinator"),
             heat_unit_en="pts", categories=("tech",),
             aggregated_as=(("dailyhot", "hackernews"), ("newsnow", "hackernews"))),
    Platform(source="reddit", label="Reddit", zh="Reddit", en="Reddit", aliases=("reddit", "红迪"),
             heat_unit_en="pts", categories=("tech",)),
    Platform(source="google_trends", label="Google", zh="谷歌趋势", en="Google Trends",
             aliases=("google trends", "谷歌趋势", "谷歌热搜", "google")),
    Platform(source="github_trending", label="GitHub", zh="GitHub", en="GitHub",
             aliases=("github trending", "github", "吉特哈布"), heat_unit_en="★", weak_headline=True,
             categories=("tech",),
             aggregated_as=(("dailyhot", "github"), ("newsnow", "github"), ("newsnow", "github-trending-today"))),
    Platform(source="wikipedia", label="Wiki", zh="维基百科", en="Wikipedia",
             aliases=("wikipedia", "维基百科", "维基", "wiki"), heat_unit_en="views", weak_headline=True),
)})

#: The platforms aggregators' routes name at run time, in the order they came; `PLATFORMS` is
#: never written after import. Only `register_platform` adds here.
_RUN_TIME: dict[str, Platform] = {}


def aggregator_ids(aggregator: str) -> dict[str, str]:
    """The aggregator's ids of the platforms we know → our source id (`"github"` → `"github_trending"`)."""
    return {upstream: p.source for p in PLATFORMS.values() for agg, upstream in p.aggregated_as if agg == aggregator}
_LABEL_CELLS = 12  # a run-time label is an upstream's text: bounded before it reaches a caption's meta line
_TAG = re.compile(r"<[^>]*>")


def _aliases() -> tuple[tuple[re.Pattern[str], Platform], ...]:
    # Longest alias first, so "百度贴吧" is Tieba, not Baidu, and "github trending" beats "github".
    return tuple(
        (re.compile(r"(?<![a-z0-9])" + re.escape(alias) + r"(?![a-z0-9])" if alias.isascii()
                    else re.escape(alias), re.I), p)
        for alias, p in sorted(((a, p) for p in (*PLATFORMS.values(), *_RUN_TIME.values()) for a in p.aliases),
                               key=lambda ap: -len(ap[0]))
    )


_ALIASES = _aliases()


def platform_record(source: str) -> Platform | None:
    """The record of `source`: one of the table's, else one an aggregator's route registered."""
    return PLATFORMS.get(source) or _RUN_TIME.get(source)


def known_platforms() -> tuple[str, ...]:
    """Every platform: the table's in its order, then those registered at run time."""
    return (*PLATFORMS, *_RUN_TIME)


def register_platform(source: str, label: str | None = None, *, domains: tuple[str, ...] = ()) -> Platform:
    """The record of `source`, adding (or relabelling) a run-time one named `label` (an aggregator
    route's own title, e.g. "36氪"); a built-in record is returned unchanged, never replaced.

    A route registers its platform when it is made and again when its first answer brings the
    route's own title and link host: the second call refreshes that record, it adds no other."""
    global _ALIASES
    if source in PLATFORMS:
        return PLATFORMS[source]
    current = _RUN_TIME.get(source)
    text = " ".join(_TAG.sub(" ", label or "").split())[:_LABEL_CELLS] or source
    if current is not None and current.label == text and (current.domains == domains or not domains):
        return current
    aliases = tuple(dict.fromkeys(a for a in (text.casefold(), source.casefold()) if len(a) >= 2))
    record = Platform(source=source, label=text, zh=text, en=text, aliases=aliases,
                      domains=domains or (current.domains if current else ()), run_time=True)
    _RUN_TIME[source] = record
    _ALIASES = _aliases()
    return record


def forget_platform(source: str) -> None:
    """Drop a run-time record (a test's own, or a route no longer configured); built-in ones stay."""
    global _ALIASES
    if _RUN_TIME.pop(source, None) is not None:
        _ALIASES = _aliases()


def run_time_platforms() -> tuple[str, ...]:
    """The platforms aggregators added, in the order they were registered."""
    return tuple(_RUN_TIME)


def find_platform(question: str) -> tuple[Platform, str] | None:
    """The platform a question names, with the words it used (longest alias wins)."""
    for pattern, platform in _ALIASES:
        m = pattern.search(question)
        if m:
            return platform, m.group(0)
    return None


def platform_name(source: str, lang: str) -> str:
    """The platform in words, in the answer's language; an unknown source (a feed) keeps its own name."""
    p = platform_record(source)
    if p is None:
        return source
    return p.zh if lang == "zh" else p.en


def caption_label(source: str) -> str:
    """The meta line's short name ("weibo" → "微博", "hackernews" → "HN"); a feed keeps its own name."""
    p = platform_record(source)
    return p.label if p else source


def heat_unit(source: str) -> str:
    """What an English heat figure of this platform counts ("pts", "★", "views"), or ""."""
    p = platform_record(source)
    return p.heat_unit_en if p else ""


def weak_headline(source: str) -> bool:
    """Whether the platform's titles word a story badly; feeds are taken to title like news."""
    p = platform_record(source)
    return p.weak_headline if p else False


def in_category(category: Category) -> tuple[str, ...]:
    """The platforms covering a subject, in the table's order."""
    return tuple(p.source for p in PLATFORMS.values() if category in p.categories)
