"""The outbox: pushes waiting to be sent, sent by a few workers of their own, so whoever has one to
send (the watcher, after a fetch cycle) hands it over and goes on; it never waits for a channel.

The queue is bounded, and so is each owner's share of it (`OWNER_SHARE`), so one tenant's many
alerts to slow channels cannot crowd out the others'. When either is full an offer is refused
(`offer` returns False) and counted, and
the caller keeps the push for later (a watch alert stays claimed and unsent, and is offered again
at the next check). `/readyz` says when the outbox is backed up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .message import Message
from .notifier import Notifier

__all__ = ["OUTBOX_SIZE", "OUTBOX_WORKERS", "OWNER_SHARE", "Outbox", "Push"]

OUTBOX_SIZE = 500
OUTBOX_WORKERS = 4
OWNER_SHARE = 50  # pushes one owner may have waiting or sending at once
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
    def __init__(self, size: int = OUTBOX_SIZE, workers: int = OUTBOX_WORKERS, share: int = OWNER_SHARE) -> None:
        self.size = size
        self.workers = workers
        self.share = share
        self._held: dict[str | None, int] = {}  # pushes waiting or sending, by owner
        self.refused = 0  # offers refused because the queue was full
        self._queue: asyncio.Queue[Push] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sending = 0
        self._refused_at = float("-inf")

    def offer(self, push: Push) -> bool:
        """Queue `push` (never waiting); False when the queue is full."""
        queue = self._started()
        held = self._held.get(push.owner, 0)
        try:
            if push.owner is not None and held >= self.share:
                raise asyncio.QueueFull
            queue.put_nowait(push)
        except asyncio.QueueFull:
            self.refused += 1
            self._refused_at = time.monotonic()
            return False
        self._held[push.owner] = held + 1
        return True

    @property
    def waiting(self) -> int:
        return (self._queue.qsize() if self._queue is not None else 0) + self._sending

    @property
    def backed_up(self) -> bool:
        """More than half the queue waits, or an offer was refused within the last minute: the channels
        are slower than what is due."""
        recent = time.monotonic() - self._refused_at < BACKED_UP_FOR_S
        return recent or (self._queue is not None and self._queue.qsize() > self.size // 2)

    async def drain(self) -> None:
        """Wait until every queued push has been through (tests, and a graceful close)."""
        if self._queue is not None and self._loop is asyncio.get_running_loop():
            await self._queue.join()

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks, self._queue, self._loop = [], None, None
        self._held.clear()

    def _started(self) -> asyncio.Queue[Push]:
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop:  # first use, or a new event loop (tests)
            self.close()
            self._loop, self._queue = loop, asyncio.Queue(self.size)
            self._tasks = [loop.create_task(self._work(self._queue), name=f"trendlens-outbox-{n}")
                           for n in range(self.workers)]
        return self._queue

    async def _work(self, queue: asyncio.Queue[Push]) -> None:
        while True:
            push = await queue.get()
            self._sending += 1
            try:
                if push.ready is not None and not await push.ready():
                    continue
                deliveries = await push.notifier.send(push.message)
                await push.done(any(d.ok for d in deliveries))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - one push's failure never stops the worker
                log.exception("push not sent")
            finally:
                self._sending -= 1
                left = self._held.get(push.owner, 1) - 1
                if left > 0:
                    self._held[push.owner] = left
                else:
                    self._held.pop(push.owner, None)
                queue.task_done()
