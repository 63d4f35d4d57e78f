"""The facts an answer may state about a topic, gathered once from the running service.

Templates and the optional LLM both word these and nothing else: where a story is
listed (platform and rank), its heat and how it moves, and when it first appeared.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from ..links import safe_link
from ..models import Topic, utcnow

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["Fact", "Placement", "ago", "gather", "heat_words", "short_title"]

Trend = Literal["new", "rising", "falling", "steady"]


@dataclass(frozen=True, kw_only=True)
class Placement:
    source: str
    rank: int | None


@dataclass(frozen=True, kw_only=True)
class Fact:
    topic: Topic  # the lead item: its title heads the answer
    placements: tuple[Placement, ...]  # one per platform, best first
    heat: float | None
    trend: Trend
    first_seen: datetime | None
    link: str | None
    history: tuple[float, ...] = field(default_factory=tuple)  # the lead's heat over time, oldest first

    @property
    def title(self) -> str:
        return self.topic.title


def _placements(members: Sequence[Topic], only: str | None) -> tuple[Placement, ...]:
    best: dict[str, int | None] = {}
    for m in sorted(members, key=lambda m: m.rank or 10**6):
        if only is None or m.source == only:
            best.setdefault(m.source, m.rank)
    return tuple(Placement(source=s, rank=r) for s, r in best.items())


async def gather(runtime: Runtime, topic: Topic, *, members: Sequence[Topic] | None = None,
                 only_source: str | None = None, with_history: bool = False) -> Fact:
    """The facts about `topic` and its cross-platform story (`only_source` keeps one platform's)."""
    cluster = runtime.clusters.get(topic.id)
    if members is None:
        members = cluster.members if cluster and only_source is None else (topic,)
    stored = [runtime.stored[m.id] for m in members if m.id in runtime.stored]
    lead = runtime.stored.get(topic.id)
    trends = {s.trend for s in stored}
    trend: Trend = ("new" if trends and trends == {"new"} else "rising" if "rising" in trends
                    else lead.trend if lead else "steady")
    first = min((datetime.fromisoformat(s.first_seen) for s in stored), default=None)
    history: tuple[float, ...] = ()
    if with_history:
        points = await asyncio.to_thread(runtime.store.history, topic.id)
        history = tuple(p.heat for p in points if p.heat is not None)
    return Fact(topic=topic, placements=_placements(members, only_source), heat=topic.heat, trend=trend,
                first_seen=first, link=safe_link(topic), history=history)


_CLAUSE_END = re.compile(r"[，,；;：:？?！!。]")


def short_title(title: str, *, limit: int = 24) -> str:
    """A title short enough to say aloud: up to its first clause end when it is long.

    Zhihu questions run to 60 characters ("外交部回应…，称「…」，美国的做法还有意义吗？");
    their first clause names the story.
    """
    if len(title) <= limit:
        return title
    m = _CLAUSE_END.search(title, 6)
    if m and m.start() <= limit * 2:
        return title[:m.start()]
    cut = title[:limit]
    return (cut.rsplit(" ", 1)[0] if " " in cut[8:] else cut) + "…"


def heat_words(value: float | None, lang: str) -> str:
    """Heat as people write it: 1810万 in Chinese, 18.1M in English."""
    if not value:
        return ""
    if lang == "zh":
        if value >= 1e8:
            return f"{value / 1e8:.1f}亿"
        if value >= 1e4:
            return f"{value / 1e4:.0f}万"
        return f"{value:g}"
    for size, unit in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if value >= size:
            return f"{value / size:.1f}{unit}".replace(".0" + unit, unit)
    return f"{value:g}"


def ago(when: datetime | None, lang: str, *, now: datetime | None = None) -> str:
    """How long ago, in words: "3小时前" / "3 hours ago"."""
    if when is None:
        return ""
    seconds = max(0.0, ((now or utcnow()) - when).total_seconds())
    hours = seconds / 3600
    if hours < 1:
        return "1小时内" if lang == "zh" else "within the last hour"
    if hours < 48:
        n = int(hours)
        return f"{n}小时前" if lang == "zh" else f"{n} hour{'s' if n != 1 else ''} ago"
    days = int(hours // 24)
    return f"{days}天前" if lang == "zh" else f"{days} days ago"
