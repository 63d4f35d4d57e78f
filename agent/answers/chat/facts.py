"""The facts an answer may state about a topic, gathered once from the running service (`ChatDeps`).

Templates and the optional LLM both word these and nothing else: where a story is
listed (platform and rank), its heat and how it moves, and when it first appeared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from agent.models import Topic, Trend
from agent.sources.links import safe_link
from agent.stories.view import per_platform, story_trend
from agent.stories.words import ago, short_title

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

__all__ = ["Fact", "Placement", "ago", "gather", "short_title"]


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
    by_place = sorted((m for m in members if only is None or m.source == only), key=lambda m: m.rank or 10**6)
    return tuple(Placement(source=m.source, rank=m.rank) for m, _ in per_platform(by_place))


async def gather(deps: ChatDeps, topic: Topic, *, members: Sequence[Topic] | None = None,
                 only_source: str | None = None, with_history: bool = False) -> Fact:
    """The facts about `topic` and its cross-platform story (`only_source` keeps one platform's)."""
    cluster = deps.index.clusters.get(topic.id)
    if members is None:
        members = cluster.members if cluster and only_source is None else (topic,)
    stored = [deps.index.stored[m.id] for m in members if m.id in deps.index.stored]
    lead = deps.index.stored.get(topic.id)
    trend = story_trend({s.trend for s in stored}, lead.trend if lead else "steady")
    first = min((datetime.fromisoformat(s.first_seen) for s in stored), default=None)
    history: tuple[float, ...] = ()
    if with_history:
        history = tuple(await deps.heat_history(topic.id))
    return Fact(topic=topic, placements=_placements(members, only_source), heat=topic.heat, trend=trend,
                first_seen=first, link=safe_link(topic), history=history)
