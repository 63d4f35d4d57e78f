"""Fair heat: each platform's heat read against its own list, then combined across platforms.

Raw heat is on a different scale per platform (Douyin's hot_value runs to ten millions,
Baidu's hotScore to millions, Zhihu prints "万热度"), so summing raw heats lets one platform
own every top spot. Instead:

    normalised(t) = (N - r + 1) / (N + 1)

where N is the number of items of t's platform in the current lists and r is t's position
among them (1 = hottest; by raw heat where the platform gives one, else by list rank). A
platform's #1 scores just under 1, its last item just above 0; a short list's #1 scores a
little less than a long list's (10 items: 0.91, 50 items: 0.98), as it beat fewer rivals.
Topics with neither heat nor rank score 0.

A story's combined heat adds each platform's best normalised heat once:

    story(c) = Σ over platforms p of c: max normalised(t) for t of c on p

so a story near the top of two lists outranks any single list's #1, while four items of
one story on one platform count once. Raw heat and rank stay on every member for display.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .pacing import sorted_paced, step_aside

__all__ = ["HeatRow", "normalised_heat", "story_heat"]


class HeatRow(NamedTuple):
    """What normalising needs of a topic, for callers holding heat apart from the `Topic`."""

    id: str
    source: str
    heat: float | None
    rank: int | None


def normalised_heat(topics: Sequence[Any]) -> dict[str, float]:
    """`topic id → normalised heat in [0, 1)` over the given current lists (Topic-like items
    with `id`, `source`, `heat`, `rank`)."""
    by_source: dict[str, list[tuple[float, int, str]]] = defaultdict(list)
    out: dict[str, float] = {}
    for t in topics:
        step_aside()  # a whole platform's list at 100k held: a build's loop (pacing.py)
        tid = t.id
        if tid in out:
            continue
        out[tid] = 0.0  # neither heat nor rank: 0
        heat, rank = t.heat or 0.0, t.rank
        if heat > 0 or rank is not None:
            # hottest first: by raw heat where given (ties and heatless items by list rank)
            by_source[t.source].append((-heat, rank if rank is not None else 1 << 30, tid))
    for listed in by_source.values():
        ranked = sorted_paced(listed)
        n = len(ranked)
        for pos, (_heat, _rank, tid) in enumerate(ranked, 1):
            out[tid] = (n - pos + 1) / (n + 1)
            if not pos & 1023:
                step_aside()
    return out


def story_heat(members: Iterable[Any], normalised: Mapping[str, float]) -> float:
    """Combined heat of a story: each platform's best normalised heat, summed."""
    best: dict[str, float] = {}
    for m in members:
        best[m.source] = max(best.get(m.source, 0.0), normalised.get(m.id, 0.0))
    return sum(best.values())
