"""Who an utterance is charged to: its key's bucket and its session's, on HTTP and the stream socket alike.

The per-key bucket (`app.state.limiter`) is the one `require_key` draws on for every request; the
per-session one (`app.state.session_limiter`, smaller: one key may serve many wearers) caps what
any one conversation can push through the model however it is driven.
A stream frame is capped in bytes before it is read whole (`MAX_FRAME_BYTES`, the server's
WebSocket limit and the route's own check): the longest utterance kept, as JSON with every
character escaped, fits; a megabyte of it never reaches the cleaning or the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from ..sessions import MAX_UTTERANCE_CHARS
from .security import RateLimiter

__all__ = ["MAX_FRAME_BYTES", "Charge", "Limiter", "session_bucket", "take_all", "take_all_async"]

# \uXXXX is 6 bytes a character; the envelope ({"type": "utterance", "final": ...}) fits in the rest
MAX_FRAME_BYTES = MAX_UTTERANCE_CHARS * 6 + 4096


class Limiter(Protocol):
    def take(self, key: str, now: float | None = None) -> float: ...


Charge = tuple[Limiter, str]  # a limiter and the bucket in it


def session_bucket(session_id: str) -> str:
    # hashed keys are hex; this prefix cannot collide with one
    return f"session:{session_id}"


def take_all(charges: Sequence[Charge]) -> float:
    """One token from each bucket; the longest wait among those that had none (0: allowed)."""
    return max((limiter.take(bucket) for limiter, bucket in charges), default=0.0)


async def take_all_async(charges: Sequence[Charge]) -> float:
    """`take_all` from a coroutine: a bucket kept in Redis is a network round trip, taken off the event loop."""
    if all(isinstance(limiter, RateLimiter) for limiter, _ in charges):  # in process: microseconds
        return take_all(charges)
    return await asyncio.to_thread(take_all, charges)
