"""Erasing a session on every instance: its rows, its sockets, an utterance in flight, the encoder's copy.

`Runtime.erase_session` deletes what is stored (rows, shared state in Redis, the HUD's last caption).
What a running instance holds besides is this module's: `ErasureGuard` runs each API utterance as a
task it can cancel, notes which texts of the session reached the query encoder's cache (as BLAKE2b
digests, never the words), and on an erasure cancels the session's utterances in flight, drops
those texts from the cache and the session from memory. The caption fan-out carries the erasure to
every instance (`CaptionFanout.erase`): each closes the session's sockets and runs its own guard.

    await erase_everywhere(runtime, guard, session_id)      # DELETE /v1/sessions/{id}
    result = await guard.run(session, runtime.handle_utterance(session, text))  # SessionErased if erased
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import TrendLensError

if TYPE_CHECKING:
    from agent.live.sessions import Session

    from ..runtime import Runtime

__all__ = ["ERASED_CLOSE", "ErasureGuard", "SessionErased", "erase_everywhere"]

ERASED_CLOSE = (4410, "session erased")  # a socket of an erased session: code and reason (4410 as in HTTP 410 Gone)
MAX_TRACED_SESSIONS = 10_000  # as many as the session manager holds in memory
MAX_TRACED_TEXTS = 64  # per session: the window holds 8; joined pieces and older lines make the rest
T = TypeVar("T")


class SessionErased(TrendLensError):
    """The session was erased while this utterance ran: nothing of it is answered or kept."""


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


class ErasureGuard:
    """One per app (per instance): the session's utterances in flight and the digests of its texts."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._running: dict[str, set[asyncio.Task[Any]]] = {}
        self._texts: OrderedDict[str, set[bytes]] = OrderedDict()  # session -> its texts' digests, LRU
        self._erased: set[asyncio.Task[Any]] = set()  # tasks cancelled because their session went

    async def run(self, session: Session, utterance: Coroutine[Any, Any, T]) -> T:
        """Await `utterance` (one of the session's), as a task an erasure cancels: SessionErased then."""
        task = asyncio.ensure_future(utterance)
        running = self._running.setdefault(session.id, set())
        running.add(task)
        try:
            return await task
        except asyncio.CancelledError:
            if task in self._erased:
                raise SessionErased(f"session {session.id} was erased") from None
            raise
        finally:
            running.discard(task)
            if not running:
                self._running.pop(session.id, None)
            self._erased.discard(task)
            self._trace(session)

    def _trace(self, session: Session) -> None:
        """Note the texts the encoder may now hold for this session: every line of its window."""
        if self.runtime.hud.was_erased(session.id):
            self.forget(session.id, session)  # an utterance that outlived the erasure
            return
        texts = self._texts.pop(session.id, set())
        texts.update(_window_digests(session))
        while len(texts) > MAX_TRACED_TEXTS:
            texts.pop()  # arbitrary: older lines fall out of the encoder's own cache first anyway
        self._texts[session.id] = texts
        while len(self._texts) > MAX_TRACED_SESSIONS:
            self._texts.popitem(last=False)

    def forget(self, session_id: str, session: Session | None = None) -> None:
        """What this instance holds of the session: cancel its utterances, drop its texts from the
        encoder's cache, drop it from memory. Safe to call more than once."""
        for task in tuple(self._running.get(session_id, ())):
            self._erased.add(task)
            task.cancel()
        self.runtime.live.forget(session_id)  # a caption held back goes up for no one
        held = session or self.runtime.sessions.peek(session_id)
        digests = self._texts.pop(session_id, set())
        if held is not None:
            digests |= _window_digests(held)
            held.window.clear()
        _drop_from_encoder(self.runtime, digests)
        self.runtime.sessions.forget(session_id)


def _window_digests(session: Session) -> set[bytes]:
    # every line the window holds, however old (utterances() leaves out the ones past its age)
    return {_digest(u.text) for u in session.window._items}


def _drop_from_encoder(runtime: Runtime, digests: set[bytes]) -> None:
    """Remove these texts' vectors from the query encoder's in-memory cache (keyed by the text itself)."""
    ranker = runtime.index.ranker
    encoder = getattr(ranker, "encoder", None) if ranker is not None else None
    if encoder is None or not digests:
        return
    # The encoder has no public way to forget a text; its cache and lock are the two it owns.
    with encoder._lock:
        for text in [t for t in encoder._cache if _digest(t) in digests]:
            del encoder._cache[text]


async def erase_everywhere(runtime: Runtime, guard: ErasureGuard, session_id: str) -> bool:
    """Erase the session: what this instance holds first (so nothing in flight writes after the
    rows go), then the store and Redis, then every instance's sockets and memory. False when the
    session was already gone from the store."""
    guard.forget(session_id)
    found = await runtime.erase_session(session_id)
    await runtime.hud.erase(session_id)
    return found
