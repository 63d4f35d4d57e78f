"""`ReleaseTimers`: a held-back caption goes up when the one before it has been read, line or no line.

A meme said while the wearer still reads a caption is held back (`SessionGate.held_back`). On the
next line it goes up; when nobody speaks again soon (the conversation's last meme, a pause at the
table) it would be lost. So each session with a story held back has one timer, set after each
line for the moment that story falls due (`SessionGate.due`), which asks the live loop to
`release` it. The same moment covers a recogniser's sentence whose caption waits for the rest of it
(`SessionGate.sentence_due`): when no more came, the release decides the sentence whole. The release
decides again under the session's lock, on the state then (another
line, here or on another instance, may have shown it or something else meanwhile), so a timer
that fires late or needlessly shows nothing.

When instances share sessions (Redis), a timer in one process would die with it: the moment is
kept in Redis instead (`RedisSessionState.schedule`), and every instance sweeps for what fell due
(`DueSweep`), each session claimed by exactly one of them, so the caption goes up on whichever
instance is alive, and reaches the wearer's display through the shared fan-out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.live.sessions import Session

__all__ = ["SWEEP_S", "DueSweep", "ReleaseTimers"]

log = logging.getLogger("trendlens.live")

#: How often each instance sweeps the shared due set: a held-back caption goes up at most this late.
SWEEP_S = 0.25


class ReleaseTimers:
    """At most one pending release per session, on the running event loop."""

    def __init__(self, release: Callable[[Session], Awaitable[Any]], *, clock: Callable[[], float] = time.time
                 ) -> None:
        self._release = release
        self._clock = clock
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task[Any]] = set()  # held so a release in flight is not collected

    def __len__(self) -> int:
        return len(self._pending)

    def set(self, session: Session, due: float | None) -> None:
        """The session's release at `due` (wall clock), replacing the one set before; None: none."""
        self.cancel(session.id)
        if due is None:
            return
        delay = max(0.0, due - self._clock())
        self._pending[session.id] = asyncio.get_running_loop().call_later(delay, self._fire, session)

    def cancel(self, session_id: str) -> None:
        handle = self._pending.pop(session_id, None)
        if handle is not None:
            handle.cancel()

    def close(self) -> None:
        """Nothing more goes up: at shutdown, pending releases are dropped and those in flight cancelled."""
        for handle in self._pending.values():
            handle.cancel()
        self._pending.clear()
        for task in self._running:
            task.cancel()

    def _fire(self, session: Session) -> None:
        self._pending.pop(session.id, None)
        task = asyncio.ensure_future(self._run(session))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, session: Session) -> None:
        await _released(self._release, session)


async def _released(release: Callable[[Session], Awaitable[Any]], session: Session) -> None:
    try:
        await release(session)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # no line waits on this: say why once, never with the speech
        log.warning("session %s: the held-back caption was not released: %s", session.id, type(exc).__name__)


class DueSweep:
    """Every `every_s`, the sessions whose held-back caption fell due, claimed from the shared set
    (`claim`: one instance gets each), found (`find`: memory, else the shared store) and released."""

    def __init__(self, claim: Callable[[float], Awaitable[list[str]]],
                 find: Callable[[str], Awaitable[Session | None]],
                 release: Callable[[Session], Awaitable[Any]], *, every_s: float = SWEEP_S,
                 clock: Callable[[], float] = time.time) -> None:
        self._claim, self._find, self._release = claim, find, release
        self._every_s = every_s
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._sweep(), name="held-back-sweep")

    async def aclose(self) -> None:
        tasks = [t for t in (self._task, *self._running) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._task = None

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self._every_s)
            for session_id in await self._claim(self._clock()):
                session = await self._find(session_id)
                if session is None:  # erased meanwhile
                    continue
                task = asyncio.ensure_future(_released(self._release, session))
                self._running.add(task)
                task.add_done_callback(self._running.discard)
