"""Answers over the kept history: a search by words within a period, one story's heat over time, and
two periods compared. Each reads the store's observations (kept for the retention period), so it
answers for items no longer on any list.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from agent.errors import ConfigError, InputError
from agent.models import Topic
from agent.store import Store
from agent.store.periods import SeenTopic, seen_between
from agent.store.records import HeatPoint
from agent.watch.matching import group_matches, story_text
from agent.watch.rules import SlowPattern, parse_watch

from .periods import Period, parse_period


def _period(text: str, now: datetime) -> Period:
    """`parse_period`, with a date past the calendar's end (`9999-12-31`) an input error, not a crash."""
    try:
        return parse_period(text, now=now)
    except OverflowError:
        raise InputError(f"period: {text[:40]!r} reaches past the last date there is") from None

__all__ = ["MATCH_BUDGET_S", "SEARCHED_ROWS", "Comparison", "HeatLine", "Matches", "compare_periods",
           "heat_over_time", "search_history"]

SEARCHED_ROWS = 20_000  # the best-placed items of a period a search reads
MATCH_BUDGET_S = 2.0  # matching them, in a worker thread: past this the search stops and says so


class Matches(list[SeenTopic]):
    """The items found, best placed first, and `cut`: why the search stopped short (None: it did not)."""

    cut: str | None = None


def _matcher(words: str) -> Callable[[str], bool]:
    """The watch lists' syntax, so a search reads as a watch word does: `关税 +美国 !广告`, English by word."""
    try:
        groups = parse_watch(words)
    except ConfigError as exc:
        raise InputError(str(exc).replace("watch: ", "words: ", 1)) from None
    if len(groups) != 1:
        raise InputError("words: give one group of words (e.g. '关税 +美国 !广告'), not several")
    group = groups[0]
    if group.meanings:  # a meaning is ranked against the current lists; the kept history is searched by words
        raise InputError("words: a ~meaning matches current stories in a watch list; search the history by words")
    return lambda title: group_matches(group, story_text([title]))


async def search_history(store: Store, words: str, period: str, *, now: datetime, limit: int = 20,
                         budget_s: float = MATCH_BUDGET_S) -> tuple[Period, Matches]:
    """Items whose title matches `words`, listed by some platform within `period`, best placed first.
    Read and matched off the event loop, within `budget_s`; what was left unsearched is said in `cut`."""
    span = _period(period, now)
    matches = _matcher(words)

    def search() -> Matches:
        seen = seen_between(store, span.since, span.until, limit=SEARCHED_ROWS)
        return _matching(seen, matches, limit, budget_s)

    return span, await asyncio.to_thread(search)


def _matching(seen: list[SeenTopic], matches: Callable[[str], bool], limit: int, budget_s: float) -> Matches:
    found = Matches()
    deadline = time.monotonic() + budget_s
    for n, item in enumerate(seen):
        if time.monotonic() > deadline:
            found.cut = f"matching stopped after {budget_s:g} s: {n} of {len(seen)} items searched"
            return found
        try:
            if matches(item.title):
                found.append(item)
        except SlowPattern as exc:
            found.cut = f"{exc}; {n} of {len(seen)} items searched"
            return found
        if len(found) >= limit:
            return found
    if len(seen) >= SEARCHED_ROWS:
        found.cut = f"only the {SEARCHED_ROWS} best-placed items of the period were searched"
    return found


@dataclass(frozen=True)
class HeatLine:
    """One item of a story and its place and heat at each fetch that listed it, oldest first."""

    topic: Topic
    points: tuple[HeatPoint, ...]


async def heat_over_time(store: Store, members: list[Topic]) -> list[HeatLine]:
    """Each member's recorded place and heat, the story's lead first."""
    histories = await asyncio.to_thread(lambda: [store.history(m.id) for m in members])
    return [HeatLine(m, tuple(h)) for m, h in zip(members, histories, strict=True)]


@dataclass(frozen=True)
class Comparison:
    first: Period
    second: Period
    arrived: list[SeenTopic]  # listed in the second period, not in the first
    left: list[SeenTopic]  # listed in the first, not in the second
    stayed: list[tuple[SeenTopic, SeenTopic]]  # in both: (first, second), the better placed in the second first


async def compare_periods(store: Store, first: str, second: str, *, now: datetime, limit: int = 10,
                          source: str | None = None) -> Comparison:
    """What the lists held in `second` against `first`: what arrived, what left, what stayed and how it moved."""
    a, b = _period(first, now), _period(second, now)
    seen_a, seen_b = await asyncio.gather(asyncio.to_thread(seen_between, store, a.since, a.until),
                                          asyncio.to_thread(seen_between, store, b.since, b.until))
    if source is not None:
        seen_a, seen_b = [s for s in seen_a if s.source == source], [s for s in seen_b if s.source == source]
    in_a, in_b = {s.id: s for s in seen_a}, {s.id: s for s in seen_b}
    stayed = [(in_a[s.id], s) for s in seen_b if s.id in in_a]
    return Comparison(a, b, arrived=[s for s in seen_b if s.id not in in_a][:limit],
                      left=[s for s in seen_a if s.id not in in_b][:limit], stayed=stayed[:limit])
