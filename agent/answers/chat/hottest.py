"""What is hottest across platforms, on heat normalised per platform.

Raw heat cannot be compared across lists: Weibo counts millions, V2EX counts replies.
Each topic scores by its place on its own list (`ranking.fair_heat.normalised_heat`, the same
fair heat the digest and the live prior use), and a story scores the sum over the
platforms that list it (its best item per platform), so a story on three lists outranks
a #1 on one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent.models import Topic
from agent.ranking.fair_heat import normalised_heat
from agent.stories.linking import Story
from agent.stories.view import by_heat, per_platform

__all__ = ["HotStory", "hottest"]


@dataclass(frozen=True, kw_only=True)
class HotStory:
    lead: Topic  # the member that is highest on its own list
    members: tuple[Topic, ...]  # one per platform, best placed first
    score: float


def hottest(topics: Iterable[Topic], clusters: Mapping[str, Story], *, limit: int = 5,
            sources: Iterable[str] | None = None) -> list[HotStory]:
    """The hottest stories now, one entry per cross-platform story, hottest first."""
    pool = list(topics)
    allowed = set(sources) if sources is not None else None
    score = normalised_heat(pool)
    stories: dict[str, list[Topic]] = defaultdict(list)  # story id → its members in the pool
    for t in pool:
        if allowed is None or t.source in allowed:
            cluster = clusters.get(t.id)
            stories[cluster.id if cluster else t.id].append(t)
    out = []
    for members in stories.values():
        ordered = tuple(m for m, _ in per_platform(by_heat(members, score)))  # each platform by its hottest
        out.append(HotStory(lead=ordered[0], members=ordered, score=sum(score[m.id] for m in ordered)))
    # ties (two lists' #1) break on place, then name: never on raw heat, whose scale differs per platform
    out.sort(key=lambda s: (-s.score, s.lead.rank or 10**6, s.lead.source, s.lead.id))
    return out[:limit]
