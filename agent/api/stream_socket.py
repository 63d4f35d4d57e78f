"""One session's stream socket: frames weighed as they arrive, answered in order, refused as error frames.

A frame is charged to its session's and its key's buckets the moment it arrives, not when its
turn comes: a client that sends 150 frames at once learns at once which were refused, instead
of queueing them all until the keepalive times out. A refused frame is answered
`{"type": "error", "code": "rate_limited", "retry_after_ms": N, "message": ...}` and the socket
stays open: one frame too many must not cost the wearer the caption feed. Accepted frames wait
in a short queue (`MAX_WAITING_FRAMES`); one that waited longer than `MAX_FRAME_WAIT_S` for its
turn is dropped with the same error, as its words are stale by then.

One sender at a time: while this socket's own utterance is answered, the session's feed waits,
so its copy of our own caption (the push step offers it before the answer is ready) is then
recognised and skipped, and each caption reaches the socket once, before its decision. An
erasure of the session ends its feed (on whichever instance it was erased), and the socket is
closed with `ERASED_CLOSE`. A socket whose key is revoked closes with `REVOKED_CLOSE` within the
key ring's recheck interval (`KeyRing.known_recheck_s`): the key is asked about again twice in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from agent.live.shared_sessions import SharedStateError

from ..errors import InputError, OverloadError
from .erase import ERASED_CLOSE, ErasureGuard, SessionErased
from .errors import validation_message
from .schemas import DecisionFrame, DecisionOut, UtteranceIn
from .throttle import MAX_FRAME_BYTES, Charge, LiveSessions, take_all_async

if TYPE_CHECKING:
    from agent.live.sessions import Session

    from ..display.base import CaptionFeed
    from ..runtime import Runtime
    from .security import KeyRing

__all__ = ["MAX_FRAME_WAIT_S", "MAX_WAITING_FRAMES", "REVOKED_CLOSE", "StreamSocket", "rate_limited"]

MAX_WAITING_FRAMES = 8  # accepted and not yet answered; a conversation has one or two in flight
MAX_FRAME_WAIT_S = 5.0  # an utterance answered later than this is stale: dropped, not answered
QUEUE_FULL_RETRY_S = 1.0  # what a frame refused for a full queue is told to wait
REVOKED_CLOSE = (4401, "API key revoked")  # the code an unaccepted key gets at connect


def rate_limited(wait_s: float, why: str) -> dict[str, Any]:
    """The error frame a refused or dropped frame gets; the socket stays open."""
    ms = max(1, math.ceil(wait_s * 1000))
    return {"type": "error", "code": "rate_limited", "retry_after_ms": ms, "message": f"{why}; retry in {ms} ms"}


class StreamSocket:
    """The accepted socket of `session`, driven by its owner's key until either side closes it."""

    def __init__(self, websocket: WebSocket, runtime: Runtime, session: Session, *, key: str, feed: CaptionFeed,
                 charges: list[Charge], guard: ErasureGuard, live: LiveSessions,
                 sent: deque[tuple[str, str]], keys: KeyRing) -> None:
        self.websocket, self.runtime, self.session, self.key = websocket, runtime, session, key
        self.feed, self.charges, self.guard, self.live = feed, charges, guard, live
        self.sent = sent  # (topic_id, created_at) of captions sent here
        self.keys = keys
        self.sending = asyncio.Lock()
        self.closed = False
        self.inbox: asyncio.Queue[tuple[str | None, float]] = asyncio.Queue(MAX_WAITING_FRAMES)

    async def run(self) -> None:
        """Until the client goes, a frame ends the socket, or the session is erased."""
        reader = asyncio.create_task(self._read())
        forwarder = asyncio.create_task(self._forward_feed())
        answerer = asyncio.create_task(self._answer())
        watcher = asyncio.create_task(self._watch_key())
        tasks = (reader, forwarder, answerer, watcher)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
                    await task

    # -- out -----------------------------------------------------------------------------------
    async def send(self, message: Mapping[str, Any]) -> None:
        async with self.sending:
            await self._send_locked(message)

    async def _send_locked(self, message: Mapping[str, Any]) -> None:
        if self.closed:
            return
        try:
            await self.websocket.send_json(dict(message))
        except (WebSocketDisconnect, RuntimeError):
            self.closed = True  # the client went; the reader sees it too

    async def close(self, code: int, reason: str, message: str | None = None) -> None:
        async with self.sending:
            if message is not None:
                await self._send_locked({"type": "error", "message": message})
            await self._close_locked(code, reason)

    async def _close_locked(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            await self.websocket.close(code=code, reason=reason[:120])

    # -- in ------------------------------------------------------------------------------------
    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.closed:
            raw = await self.websocket.receive()
            if raw.get("type") == "websocket.disconnect":
                return
            size = len(raw.get("bytes") or b"") + len((raw.get("text") or "").encode())
            if size > MAX_FRAME_BYTES:  # the server refuses these first; this holds behind any server
                message = f"frame over {MAX_FRAME_BYTES} bytes"
                await self.close(1009, message, message)
                return
            self.live.touch(self.key, self.session.id)
            try:
                wait = await take_all_async(self.charges)
            except SharedStateError as exc:
                await self.close(1013, str(exc), str(exc))
                return
            if wait:
                await self.send(rate_limited(wait, "rate limit exceeded"))
            elif self.inbox.full():
                await self.send(rate_limited(QUEUE_FULL_RETRY_S,
                                             f"{MAX_WAITING_FRAMES} frames already wait for their answer"))
            else:
                self.inbox.put_nowait((raw.get("text"), loop.time()))

    async def _answer(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.closed:
            text, arrived = await self.inbox.get()
            waited = loop.time() - arrived
            if waited > MAX_FRAME_WAIT_S:
                await self.send(rate_limited(QUEUE_FULL_RETRY_S,
                                             f"frame dropped after waiting {waited:.1f} s for its answer"))
                continue
            async with self.sending:
                try:
                    await self._answer_frame(text)
                except SessionErased:
                    await self._close_locked(*ERASED_CLOSE)
                    return
                except (WebSocketDisconnect, RuntimeError):
                    self.closed = True
                    return

    async def _forward_feed(self) -> None:
        # ends when the session is erased (or the service stops)
        while (message := await self.feed.get()) is not None:
            if message.get("type") == "erased":
                break
            if message.get("type") != "caption":
                continue  # `clear` is the HUD page's business
            async with self.sending:
                seen = (str(message.get("topic_id")), str(message.get("created_at")))
                if seen not in self.sent:
                    self.sent.append(seen)
                    await self._send_locked(message)
        if self.runtime.hud.was_erased(self.session.id):
            await self.close(*ERASED_CLOSE)

    async def _watch_key(self) -> None:
        """Close the socket once its key is revoked: an accepted handshake is no licence for ever."""
        every = self.keys.known_recheck_s / 2  # each answer at most this old: revoked to closed within the interval
        while not self.closed:
            await asyncio.sleep(every)
            if not await self.keys.still_valid_async(self.key, every):
                await self.close(*REVOKED_CLOSE, "this API key was revoked")
                return

    async def _answer_frame(self, text: str | None) -> None:
        ws = self.websocket
        said = _utterance_of(text)
        if isinstance(said, str):
            await ws.send_json({"type": "error", "message": said})
            return
        started = time.perf_counter()
        try:
            result = await self.guard.run(self.session, self.runtime.handle_utterance(
                self.session, said.text, final=said.final))
        except (InputError, OverloadError) as exc:
            await ws.send_json({"type": "error", "message": str(exc)})
            return
        decided = time.perf_counter()
        for caption in result.captions:
            public = caption.to_public()
            self.sent.append((str(public["topic_id"]), str(public["created_at"])))
            await ws.send_json({"type": "caption", **public})
        if result.warning:
            await ws.send_json({"type": "warning", "message": result.warning})
        decision = DecisionOut.of(result.decision) if result.decision is not None else None
        frame = DecisionFrame(decision=decision, elapsed_ms=round((time.perf_counter() - started) * 1000, 1),
                              stages_ms=result.stages_ms)
        await ws.send_json(frame.model_dump(mode="json"))
        if result.decision is not None:  # the one stage after the decision's record is made: its frames
            self.runtime.metrics.stage_seconds.observe(time.perf_counter() - decided, "socket_send")


def _utterance_of(text: str | None) -> UtteranceIn | str:
    """A frame's utterance, checked by the HTTP body's own model (`"final": "false"` is False on
    both), or the one-line error the frame is answered with."""
    if text is None:
        return "send JSON text frames"
    try:
        msg = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return "frame is not valid JSON"
    if not isinstance(msg, dict) or msg.get("type") != "utterance":
        return "expected {\"type\": \"utterance\", ...}"
    try:
        return UtteranceIn.model_validate({k: v for k, v in msg.items() if k != "type"})
    except ValidationError as exc:
        return validation_message(exc.errors())[0]
