"""Platform names as people say them, in both languages: one explicit table.

A question names a platform however the asker knows it ("知乎", "Zhihu", "HN", "B站");
an answer names it in words a voice can read ("Hacker News", "微博"), never as a source id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PLATFORMS", "Platform", "find_platform", "platform_name"]


@dataclass(frozen=True, kw_only=True)
class Platform:
    source: str
    zh: str
    en: str
    aliases: tuple[str, ...] = ()


PLATFORMS: tuple[Platform, ...] = (
    Platform(source="weibo", zh="微博", en="Weibo", aliases=("微博", "新浪微博", "weibo", "微博热搜")),
    Platform(source="zhihu", zh="知乎", en="Zhihu", aliases=("知乎", "zhihu")),
    Platform(source="tieba", zh="贴吧", en="Tieba", aliases=("百度贴吧", "贴吧", "tieba")),
    Platform(source="baidu", zh="百度", en="Baidu", aliases=("百度", "baidu")),
    Platform(source="douyin", zh="抖音", en="Douyin", aliases=("抖音", "douyin", "tiktok china")),
    Platform(source="bilibili", zh="B站", en="Bilibili",
             aliases=("哔哩哔哩", "b站", "bilibili", "bili bili", "小破站")),
    Platform(source="toutiao", zh="头条", en="Toutiao", aliases=("今日头条", "头条", "toutiao")),
    Platform(source="v2ex", zh="V2EX", en="V2EX", aliases=("v2ex", "v站")),
    Platform(source="hackernews", zh="Hacker News", en="Hacker News",
             aliases=("hacker news", "hackernews", "hacker-news", "hn", "黑客新闻", "ycombinator")),
    Platform(source="reddit", zh="Reddit", en="Reddit", aliases=("reddit", "红迪")),
    Platform(source="google_trends", zh="谷歌趋势", en="Google Trends",
             aliases=("google trends", "谷歌趋势", "谷歌热搜", "google")),
    Platform(source="github_trending", zh="GitHub", en="GitHub",
             aliases=("github trending", "github", "吉特哈布")),
    Platform(source="wikipedia", zh="维基百科", en="Wikipedia", aliases=("wikipedia", "维基百科", "维基", "wiki")),
)

_BY_SOURCE = {p.source: p for p in PLATFORMS}
# Longest alias first, so "百度贴吧" is Tieba, not Baidu, and "github trending" beats "github".
_ALIASES: tuple[tuple[re.Pattern[str], Platform], ...] = tuple(
    (re.compile(r"(?<![a-z0-9])" + re.escape(alias) + r"(?![a-z0-9])" if alias.isascii() else re.escape(alias),
                re.I), p)
    for alias, p in sorted(((a, p) for p in PLATFORMS for a in p.aliases), key=lambda ap: -len(ap[0]))
)


def find_platform(question: str) -> tuple[Platform, str] | None:
    """The platform a question names, with the words it used (longest alias wins)."""
    for pattern, platform in _ALIASES:
        m = pattern.search(question)
        if m:
            return platform, m.group(0)
    return None


def platform_name(source: str, lang: str) -> str:
    """The platform in words, in the answer's language; an unknown source keeps its own name."""
    p = _BY_SOURCE.get(source)
    if p is None:
        return source
    return p.zh if lang == "zh" else p.en
