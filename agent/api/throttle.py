"""Who an utterance is charged to: its key's bucket and its session's, on HTTP and the stream socket alike.

The per-key bucket (`app.state.limiter`) is the one `require_key` draws on for every request; the
per-session one (`app.state.session_limiter`, smaller: one key may serve many wearers) caps what
any one conversation can push through the model however it is driven.
A stream frame is capped in bytes before it is read whole (`MAX_FRAME_BYTES`, the server's
WebSocket limit and the route's own check): the longest utterance kept, as JSON with every
character escaped, fits; a megabyte of it never reaches the cleaning or the model.

The per-key bucket scales with the key's live sessions (`KeyLimiter`): a key whose N sessions
spoke in the last `LIVE_S` seconds on this instance may send what N sessions' buckets allow, and
never less than its own configured limit. So an operator key behind 40 wearers is limited like
40 conversations, not like one client, while each conversation keeps its own smaller bucket.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from agent.text import MAX_TEXT_CHARS

from .security import RateLimiter

__all__ = ["LIVE_S", "MAX_FRAME_BYTES", "Charge", "KeyLimiter", "LiveSessions", "Limiter", "session_bucket",
           "take_all", "take_all_async"]

# \uXXXX is 6 bytes a character; the envelope ({"type": "utterance", "final": ...}) fits in the rest
MAX_FRAME_BYTES = MAX_TEXT_CHARS * 6 + 4096


LIVE_S = 60.0  # a session that spoke this recently counts as live for its key's limit
MAX_LIVE_TRACKED = 100_000  # sessions tracked at most (the oldest first out): a few MB


class Limiter(Protocol):
    def take(self, key: str, now: float | None = None) -> float: ...


class _Bucketed(Protocol):
    rate: float
    burst: int

    def take(self, key: str, now: float | None = None, *, rate: float | None = None,
             burst: int | None = None) -> float: ...


class LiveSessions:
    """Which sessions of each key spoke in the last `window_s` seconds on this instance."""

    def __init__(self, *, window_s: float = LIVE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.window_s, self._clock = window_s, clock
        self._seen: OrderedDict[str, tuple[str, float]] = OrderedDict()  # session -> (key, when), oldest first
        self._per_key: dict[str, int] = {}

    def touch(self, key: str, session_id: str) -> None:
        self._drop(session_id)
        self._seen[session_id] = (key, self._clock())
        self._per_key[key] = self._per_key.get(key, 0) + 1
        if len(self._seen) > MAX_LIVE_TRACKED:
            self._drop(next(iter(self._seen)))

    def count(self, key: str) -> int:
        now = self._clock()
        while self._seen:
            oldest, (_, at) = next(iter(self._seen.items()))
            if now - at <= self.window_s:
                break
            self._drop(oldest)
        return self._per_key.get(key, 0)

    def _drop(self, session_id: str) -> None:
        held = self._seen.pop(session_id, None)
        if held is not None:
            left = self._per_key[held[0]] - 1
            if left:
                self._per_key[held[0]] = left
            else:
                del self._per_key[held[0]]


@dataclass
class KeyLimiter:
    """The per-key bucket, its rate and burst the larger of its own and `per_session` times the key's
    live sessions (`LiveSessions`). With Redis the bucket is shared and each draw refills it at the
    rate its own instance's count gives: a key whose sessions are spread over instances is limited
    by what each instance sees of them, not their sum (stricter, never looser)."""

    base: _Bucketed
    live: LiveSessions
    session_rate: float
    session_burst: int

    def take(self, key: str, now: float | None = None) -> float:
        n = self.live.count(key)
        return self.base.take(key, now, rate=max(self.base.rate, n * self.session_rate),
                              burst=max(self.base.burst, n * self.session_burst))


Charge = tuple[Limiter, str]  # a limiter and the bucket in it


def session_bucket(session_id: str) -> str:
    # hashed keys are hex; this prefix cannot collide with one
    return f"session:{session_id}"


def take_all(charges: Sequence[Charge]) -> float:
    """One token from each bucket in turn (0: allowed); the first with none refuses, with its wait, and
    the buckets after it are not drawn: a flood the session's bucket refuses leaves its key's alone."""
    for limiter, bucket in charges:
        wait = limiter.take(bucket)
        if wait:
            return wait
    return 0.0


async def take_all_async(charges: Sequence[Charge]) -> float:
    """`take_all` from a coroutine: a bucket kept in Redis is a network round trip, taken off the event loop."""
    if all(isinstance(limiter.base if isinstance(limiter, KeyLimiter) else limiter, RateLimiter)
           for limiter, _ in charges):  # in process: microseconds
        return take_all(charges)
    return await asyncio.to_thread(take_all, charges)
