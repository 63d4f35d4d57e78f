"""`ReleaseTimers`: a held-back caption goes up when the one before it has been read, line or no line.

A meme said while the wearer still reads a caption is held back (`SessionGate.held_back`). On the
next line it goes up; when nobody speaks again soon (the conversation's last meme, a pause at the
table) it would be lost. So each session with a story held back has one timer, set after each
line for the moment that story falls due (`SessionGate.due`), which asks the live loop to
`release` it. The release decides again under the session's lock, on the state then (another
line, here or on another instance, may have shown it or something else meanwhile), so a timer
that fires late or needlessly shows nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.live.sessions import Session

__all__ = ["ReleaseTimers"]

log = logging.getLogger("trendlens.live")


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
        try:
            await self._release(session)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # no line waits on this: say why once, never with the speech
            log.warning("session %s: the held-back caption was not released: %s", session.id,
                        type(exc).__name__)
