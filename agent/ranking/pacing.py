"""Queries first: a build running in a worker thread steps aside while a query is being answered.

Python runs one thread's bytecode at a time. A re-index or a story update is seconds of
Python in a worker thread, and while it runs a decision on the event loop gets the interpreter
only every other switch interval, so it takes twice its time or more (`scripts/bench/index_growth.py`,
decisions during a 20k re-index). So a query says while it is being answered (`answering`), and
the build's loops call `step_aside()` often: while a query is being answered the build waits,
at most `MAX_WAIT_S` at a time, so a steady stream of queries slows a build but never stops it.
While a build runs (`building`), the interpreter also offers the other threads a turn every
`BUILD_SWITCH_S` instead of every 5 ms, so a query waits about that long for its first turn.

Process-wide, as the interpreter lock is: any thread may answer, any thread may build.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__ = ["BUILD_SWITCH_S", "MAX_WAIT_S", "a_build", "answering", "building", "step_aside"]

MAX_WAIT_S = 0.05  # longer than a decision's own work (10-30 ms), short beside a build
BUILD_SWITCH_S = 0.001

_lock = threading.Lock()
_idle = threading.Event()
_idle.set()
_answering = 0
_building = 0
_switch_before = sys.getswitchinterval()


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
    """Called often by a build's loops: wait while a query is being answered (a cheap test when none is)."""
    if _answering:
        _idle.wait(MAX_WAIT_S)


@contextmanager
def building() -> Iterator[None]:
    """Mark a build running: the interpreter switches threads every `BUILD_SWITCH_S` meanwhile."""
    global _building, _switch_before
    with _lock:
        if not _building:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_before, BUILD_SWITCH_S))
        _building += 1
    try:
        yield
    finally:
        with _lock:
            _building -= 1
            if not _building:
                sys.setswitchinterval(_switch_before)


P = ParamSpec("P")
T = TypeVar("T")


def a_build(fn: Callable[P, T]) -> Callable[P, T]:
    """Run `fn` as a build (`building`)."""
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with building():
            return fn(*args, **kwargs)
    return run
