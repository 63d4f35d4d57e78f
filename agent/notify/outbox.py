"""The outbox: pushes waiting to be sent, sent by a few workers of their own, so whoever has one to
send (the watcher, after a fetch cycle) hands it over and goes on; it never waits for a channel.

The queue is bounded, and so is each owner's share of it (`OWNER_SHARE`), so one tenant's many
alerts to slow channels cannot crowd out the others'. When either is full an offer is refused
(`offer` returns False) and counted, and
the caller keeps the push for later (a watch alert stays claimed and unsent, and is offered again
at the next check). `/readyz` says when the outbox is backed up.

The workers serve the owners in turn, and one owner has at most `OWNER_SENDING` pushes sending at
once: a tenant whose channels never answer holds that many workers for a send's deadline, never
all of them, so every other tenant's alerts go out meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .message import Message
from .notifier import Notifier

__all__ = ["OUTBOX_SIZE", "OUTBOX_WORKERS", "OWNER_SENDING", "OWNER_SHARE", "Outbox", "Push"]

OUTBOX_SIZE = 500
OUTBOX_WORKERS = 4
OWNER_SHARE = 50  # pushes one owner may have waiting or sending at once
OWNER_SENDING = 1  # of them sending at once: the workers left over serve the other owners
BACKED_UP_FOR_S = 60.0  # /readyz says "backed up" this long after a push was refused
log = logging.getLogger("trendlens.notify")


@dataclass(frozen=True, kw_only=True)
class Push:
    """One message to one owner's channels, and what to do once it is through (`sent`: any channel took it).
    `ready`, asked just before sending: whether it is still to be sent (a claim another took is not)."""

    notifier: Notifier
    message: Message
    done: Callable[[bool], Awaitable[None]]
    ready: Callable[[], Awaitable[bool]] | None = None
    owner: str | None = None  # whose push it is: each owner's share of the queue is bounded (None: the operator's)


class Outbox:
    def __init__(self, size: int = OUTBOX_SIZE, workers: int = OUTBOX_WORKERS, share: int = OWNER_SHARE,
                 sending: int = OWNER_SENDING) -> None:
        self.size = size
        self.workers = workers
        self.share = share
        self.per_owner_sending = sending
        self._waiting: dict[str | None, deque[Push]] = {}  # by owner, oldest first; an owner's turn in order
        self._sending_by: dict[str | None, int] = {}
        self.refused = 0  # offers refused because the queue was full
        self._wake: asyncio.Event | None = None  # a push was offered, or an owner's send ended
        self._idle: asyncio.Event | None = None  # nothing waits or sends
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sending = 0
        self._refused_at = float("-inf")

    def offer(self, push: Push) -> bool:
        """Queue `push` (never waiting); False when the queue, or the owner's share of it, is full."""
        wake, idle = self._started()
        held = len(self._waiting.get(push.owner, ())) + self._sending_by.get(push.owner, 0)
        if self.waiting >= self.size or (push.owner is not None and held >= self.share):
            self.refused += 1
            self._refused_at = time.monotonic()
            return False
        self._waiting.setdefault(push.owner, deque()).append(push)
        idle.clear()
        wake.set()
        return True

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values()) + self._sending

    @property
    def backed_up(self) -> bool:
        """More than half the queue waits, or an offer was refused within the last minute: the channels
        are slower than what is due."""
        recent = time.monotonic() - self._refused_at < BACKED_UP_FOR_S
        return recent or self.waiting - self._sending > self.size // 2

    async def drain(self) -> None:
        """Wait until every queued push has been through (tests, and a graceful close)."""
        if self._idle is not None and self._loop is asyncio.get_running_loop() and self.waiting:
            await self._idle.wait()

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks, self._wake, self._idle, self._loop = [], None, None, None
        self._waiting.clear()
        self._sending_by.clear()
        self._sending = 0

    def _started(self) -> tuple[asyncio.Event, asyncio.Event]:
        loop = asyncio.get_running_loop()
        if self._wake is None or self._idle is None or self._loop is not loop:  # first use, or a new loop (tests)
            self.close()
            self._loop, self._wake, self._idle = loop, asyncio.Event(), asyncio.Event()
            self._tasks = [loop.create_task(self._work(self._wake, self._idle), name=f"trendlens-outbox-{n}")
                           for n in range(self.workers)]
        return self._wake, self._idle

    def _next(self) -> Push | None:
        """The oldest push of the first owner in turn with room to send; that owner goes last."""
        for owner in list(self._waiting):
            if self._sending_by.get(owner, 0) < self.per_owner_sending:
                queue = self._waiting.pop(owner)
                push = queue.popleft()
                if queue:
                    self._waiting[owner] = queue  # back of the line
                self._sending_by[owner] = self._sending_by.get(owner, 0) + 1
                self._sending += 1
                return push
        return None

    async def _work(self, wake: asyncio.Event, idle: asyncio.Event) -> None:
        while True:
            wake.clear()  # before looking: an offer made after this sets it again
            push = self._next()
            if push is None:
                await wake.wait()
                continue
            try:
                if push.ready is None or await push.ready():
                    deliveries = await push.notifier.send(push.message)
                    await push.done(any(d.ok for d in deliveries))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - one push's failure never stops the worker
                log.exception("push not sent")
            finally:
                self._sending -= 1
                left = self._sending_by.get(push.owner, 1) - 1
                if left > 0:
                    self._sending_by[push.owner] = left
                else:
                    self._sending_by.pop(push.owner, None)
                wake.set()  # the owner may send its next one; a worker waiting for it looks again
                if not self.waiting:
                    idle.set()
