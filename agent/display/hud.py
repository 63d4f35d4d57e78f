"""`HudHub`: fan captions out to the web HUD pages watching each session.

Each subscriber (one browser tab, usually behind a WebSocket route) owns a
small bounded queue. A slow tab cannot grow memory: when its queue is full the
oldest message is dropped, because only the newest caption is worth showing.
The last caption per session is kept so a tab that (re)connects sees it at once.
An erased session's feeds end with `{"type": "erased"}`, and its id is remembered for a while
(`ERASED_KEEP_S`, at most `max_remembered`) so a caption still in flight for it is refused.

    async with hub.subscribe(session_id) as sub:
        async for message in sub:          # {"type": "caption", ...} / {"type": "clear", ...}
            await websocket.send_json(message)
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from types import TracebackType
from typing import Any

from ..captions.caption import Caption
from .base import DEFAULT_SESSION

__all__ = ["ERASED_KEEP_S", "HudHub", "HudSubscription"]

Message = dict[str, Any]
ERASED_KEEP_S = 600.0  # far longer than any utterance in flight when its session was erased


class HudSubscription:
    """One viewer's feed; iterate it (or `await get()`) until the hub closes it."""

    def __init__(self, hub: HudHub, session_id: str, maxsize: int) -> None:
        self.hub = hub
        self.session_id = session_id
        self.dropped = 0
        self._queue: asyncio.Queue[Message | None] = asyncio.Queue(maxsize=maxsize)
        self._closed = False

    def offer(self, message: Message | None) -> None:
        """Queue without waiting; evict the oldest message when full (`None` = end of feed)."""
        if self._closed:
            return
        if self._queue.full():
            self._queue.get_nowait()
            self.dropped += 1
        self._queue.put_nowait(message)

    async def get(self) -> Message | None:
        """The next message, or None once the feed is closed."""
        if self._closed and self._queue.empty():
            return None
        message = await self._queue.get()
        if message is None:
            self._closed = True
        return message

    def __aiter__(self) -> HudSubscription:
        return self

    async def __anext__(self) -> Message:
        message = await self.get()
        if message is None:
            raise StopAsyncIteration
        return message

    def close(self) -> None:
        self.hub.unsubscribe(self)
        self._closed = True

    async def __aenter__(self) -> HudSubscription:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class HudHub:
    """A `Display` broadcasting to per-session subscribers; `queue_size` bounds each viewer."""

    name = "hud"

    def __init__(self, *, queue_size: int = 8, clock: Callable[[], float] = time.time,
                 max_remembered: int = 10_000) -> None:
        self._queue_size = max(1, queue_size)
        self._clock = clock
        self._subscribers: dict[str, set[HudSubscription]] = {}
        # each session's last caption, oldest shown first: expired ones are dropped from the front
        # as new ones arrive, and never more than `max_remembered` are held
        self._last: OrderedDict[str, Caption] = OrderedDict()
        self._max_remembered = max(1, max_remembered)
        self._erased: OrderedDict[str, float] = OrderedDict()  # session -> when it was erased, oldest first
        self._erase_listeners: list[Callable[[str], None]] = []

    def subscribe(self, session_id: str | None = None) -> HudSubscription:
        """Start a feed for `session_id`; it opens with the session's last live caption, if any."""
        session = session_id or DEFAULT_SESSION
        sub = HudSubscription(self, session, self._queue_size)
        self._subscribers.setdefault(session, set()).add(sub)
        last = self.last_caption(session)
        if last is not None:
            sub.offer(_caption_message(last))
        return sub

    def unsubscribe(self, sub: HudSubscription) -> None:
        subs = self._subscribers.get(sub.session_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self._subscribers[sub.session_id]

    def subscriber_count(self, session_id: str | None = None) -> int:
        return len(self._subscribers.get(session_id or DEFAULT_SESSION, ()))

    def last_caption(self, session_id: str | None = None) -> Caption | None:
        """The session's latest caption while it is still within its TTL."""
        caption = self._last.get(session_id or DEFAULT_SESSION)
        return None if caption is None or caption.expired(self._clock()) else caption

    async def show(self, caption: Caption) -> bool:
        if caption.expired(self._clock()):
            return False
        session = caption.session_id or DEFAULT_SESSION
        if self.was_erased(session):
            return False  # decided by an utterance that was in flight when the session was erased
        self._remember(session, caption)
        message = _caption_message(caption)
        for sub in tuple(self._subscribers.get(session, ())):
            sub.offer(message)
        return True

    def _remember(self, session: str, caption: Caption) -> None:
        self._last[session] = caption
        self._last.move_to_end(session)
        now = self._clock()
        while self._last:
            oldest = next(iter(self._last.values()))
            if len(self._last) <= self._max_remembered and not oldest.expired(now):
                break
            self._last.popitem(last=False)

    def remembered(self) -> int:
        """How many sessions' last captions are held."""
        return len(self._last)

    async def clear(self, session_id: str | None = None) -> None:
        session = session_id or DEFAULT_SESSION
        self._last.pop(session, None)
        for sub in tuple(self._subscribers.get(session, ())):
            sub.offer({"type": "clear", "session_id": session})

    def was_erased(self, session_id: str) -> bool:
        at = self._erased.get(session_id)
        return at is not None and self._clock() - at <= ERASED_KEEP_S

    def on_erase(self, listener: Callable[[str], None]) -> None:
        self._erase_listeners.append(listener)

    async def erase(self, session_id: str) -> None:
        """End the session's feeds (`erased`, then the end), forget its caption, refuse its next ones,
        and tell the listeners (the API closes the session's sockets and forgets what it held)."""
        now = self._clock()
        self._erased.pop(session_id, None)
        self._erased[session_id] = now
        while self._erased and (len(self._erased) > self._max_remembered
                                or now - next(iter(self._erased.values())) > ERASED_KEEP_S):
            self._erased.popitem(last=False)
        self._last.pop(session_id, None)
        for sub in tuple(self._subscribers.pop(session_id, ())):
            sub.offer({"type": "erased", "session_id": session_id})
            sub.offer(None)
        for listener in self._erase_listeners:
            listener(session_id)

    async def aclose(self) -> None:
        """End every feed (iterators stop) and forget the last captions."""
        for subs in tuple(self._subscribers.values()):
            for sub in tuple(subs):
                sub.offer(None)
        self._subscribers.clear()
        self._last.clear()


def _caption_message(caption: Caption) -> Message:
    return {"type": "caption", **caption.to_public()}
