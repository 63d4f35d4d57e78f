"""A story as every surface reads it: its members in one order, one place per platform, one trend.

The digest, the story answer (chat, Lingzhu, MCP), the chat's facts and the hottest list each
read a story's members; these are the rules they share, so a story reads the same on each.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from agent.models import Topic, Trend

__all__ = ["by_heat", "per_platform", "story_trend"]


def by_heat(members: Sequence[Topic], fair: Mapping[str, float]) -> list[Topic]:
    """Members hottest first by fair heat (each platform's heat against its own list), then by place
    and id, so the lead is the same on every surface."""
    return sorted(members, key=lambda m: (-fair.get(m.id, 0.0), m.rank or 10**6, m.id))


def per_platform(ordered: Sequence[Topic]) -> list[tuple[Topic, int]]:
    """Each platform once, by its first member in `ordered`, with how many of the story's items it lists."""
    first: dict[str, Topic] = {}
    counts: dict[str, int] = {}
    for m in ordered:
        first.setdefault(m.source, m)
        counts[m.source] = counts.get(m.source, 0) + 1
    return [(m, counts[s]) for s, m in first.items()]


def story_trend(trends: Collection[Trend], lead: Trend) -> Trend:
    """The story's trend from its members': new when every one is new, rising when any rises, else the lead's."""
    if trends and set(trends) == {"new"}:
        return "new"
    return "rising" if "rising" in trends else lead
