"""Queries first: a build running in a worker thread steps aside while a query is being answered.

Python runs one thread's bytecode at a time. A re-index or a story update is seconds of
Python in a worker thread, and while it runs a decision on the event loop gets the interpreter
only every other switch interval, so it takes twice its time or more (`scripts/bench/index_growth.py`,
decisions during a 20k re-index). So a query says while it is being answered (`answering`), and
the build's loops call `step_aside()` often: while a query is being answered the build waits,
at most `MAX_WAIT_S` at a time, so a steady stream of queries slows a build but never stops it.
While a build runs (`building`), the interpreter also offers the other threads a turn every
`BUILD_SWITCH_S` instead of every 5 ms, so a query waits about that long for its first turn.

The cycle collector stalls a decision too, holding the interpreter lock all along. A full
collection walks every tracked object, about 26 per held topic (575k at 20k held: 530 ms); a young
one is not free either: a row tuple or map of a 100k index is one new object but 100k references
for each young collection that finds it to visit (20-45 ms each, several per re-index at 20k or
100k held, a decision meeting one waiting that long). A build's own allocations set them off.
So while a build runs no collection starts at all, and when the last build ends what is young is
frozen (`gc.freeze`, which moves lists and walks nothing): later collections never walk the held
index again. What a freeze hides from the collector is garbage in reference cycles made while a
build ran: the index makes none (a replaced snapshot is freed by its reference count, tested,
through the store too; a 20k re-index left 0 such objects), and what other threads make meanwhile
waits for the reclaim: when the process's peak size has doubled since the last full collection, a
build's end unfreezes and collects everything once (`RECLAIM_GROWTH`), as rare as the held set
doubling.

So does a long sort in C: one `sorted` of 80k story links held the lock 130 ms.
`sorted_paced` sorts in short runs and merges them in Python.

Process-wide, as the interpreter lock is: any thread may answer, any thread may build.
"""

from __future__ import annotations

import functools
import gc
import heapq
import resource
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

__all__ = ["BUILD_SWITCH_S", "MAX_WAIT_S", "RECLAIM_GROWTH", "a_build", "answering", "building", "paced",
           "sorted_paced", "step_aside"]

MAX_WAIT_S = 0.05  # longer than a decision's own work (10-30 ms), short beside a build
BUILD_SWITCH_S = 0.001
RECLAIM_GROWTH = 2.0  # the peak size grown this many times over since the last full collection
SORT_RUN = 2048  # items sorted in one C call by `sorted_paced` (about 3 ms)
_NEVER = 2**30  # a threshold no generation's count reaches

_lock = threading.Lock()
_idle = threading.Event()
_idle.set()
_answering = 0
_building = 0
_switch_before = sys.getswitchinterval()
_thresholds = gc.get_threshold()
_held = False  # whether the thresholds are a build's (`_thresholds` holds the ones to put back)
_reclaimed_at = 0  # the process's peak size at the last full collection
_thread = threading.local()  # builds: how many this thread is running

P = ParamSpec("P")
T = TypeVar("T")


@contextmanager
def answering() -> Iterator[None]:
    """Mark a query being answered: builds wait at their next `step_aside` until it is done."""
    global _answering
    with _lock:
        _answering += 1
        _idle.clear()
    try:
        yield
    finally:
        with _lock:
            _answering -= 1
            if not _answering:
                _idle.set()


def step_aside() -> None:
    """Called often by a build's loops: wait while a query is being answered (a cheap test when none is).

    Only inside a build: fair heat and story names are read by requests too (the digest, a story
    answer), and a request must not wait on a decision."""
    if _answering and getattr(_thread, "builds", 0):
        _idle.wait(MAX_WAIT_S)


@contextmanager
def building() -> Iterator[None]:
    """Mark a build running: threads switch every `BUILD_SWITCH_S`, no collection starts meanwhile,
    and what is young when the last build ends is frozen (module docstring)."""
    global _building, _switch_before, _thresholds, _held
    with _lock:
        if not _held:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_before, BUILD_SWITCH_S))
            _thresholds = gc.get_threshold()
            if _thresholds[0]:  # 0: the collector is off, and stays so
                gc.set_threshold(_NEVER, _NEVER, _NEVER)
            _held = True
        _building += 1
    _thread.builds = getattr(_thread, "builds", 0) + 1
    try:
        yield
    finally:
        _thread.builds -= 1
        with _lock:
            _building -= 1
            last = not _building
        if last:
            # outside the lock: a reclaim runs finalizers, and a decision may be waiting on it; before the
            # thresholds are back, or an automatic collection walks the build's young objects first
            _freeze()
            with _lock:
                if not _building and _held:  # a build started meanwhile keeps them
                    sys.setswitchinterval(_switch_before)
                    gc.set_threshold(*_thresholds)
                    _held = False


def _freeze() -> None:
    """Freeze what is young when a build ends; collect everything first when the process has grown twice over.

    The process's peak size, not the frozen count: counting the frozen objects walks them all
    (53 ms at 20k held)."""
    global _reclaimed_at
    if not gc.isenabled():  # an embedding program that manages the collector itself
        return
    if _peak_rss() > RECLAIM_GROWTH * _reclaimed_at:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        _reclaimed_at = _peak_rss()
        return
    gc.freeze()  # no collection first: it would walk every reference of the build's new rows (module docstring)


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def paced(items: Iterable[T], every: int = 64) -> Iterator[T]:
    """`items`, with a `step_aside` before every `every`-th: a build's comprehensions and loops over a
    whole region or a big story, each item cheap but their sum long (a 10-40 ms stretch of a 20k
    re-index without one doubled a decision's time: it got the interpreter every other switch)."""
    for n, item in enumerate(items):
        if not n % every:
            step_aside()
        yield item


def sorted_paced(items: Iterable[T], key: Callable[[T], Any] | None = None) -> list[T]:
    """`sorted(items, key=key)`, stable too, holding the interpreter lock one short run at a time:
    runs of `SORT_RUN` sorted in C, merged in Python (which switches threads), `step_aside` between."""
    items = list(items)
    if len(items) <= SORT_RUN:
        return sorted(items, key=key)  # type: ignore[type-var, arg-type]  # None: the items are their keys
    keys: list[Any] = items
    if key is not None:
        keys = []
        for n, item in enumerate(items):
            keys.append(key(item))
            if not n & 1023:
                step_aside()
    runs = []
    for start in range(0, len(items), SORT_RUN):
        runs.append(sorted(range(start, min(start + SORT_RUN, len(items))), key=keys.__getitem__))
        step_aside()
    out = []
    # heapq.merge takes equal keys from the earlier run first: the order `sorted` gives
    for n, i in enumerate(heapq.merge(*runs, key=keys.__getitem__)):
        out.append(items[i])
        if not n & 1023:
            step_aside()
    return out


def a_build(fn: Callable[P, T]) -> Callable[P, T]:
    """Run `fn` as a build (`building`)."""
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with building():
            return fn(*args, **kwargs)
    return run
