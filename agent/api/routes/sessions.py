"""/v1/sessions: create a glasses session, feed it utterances, watch its captions."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Request, Response, WebSocket, WebSocketDisconnect

from ...errors import InputError, OverloadError
from ...shared_sessions import SharedStateError
from ..deps import ApiKey, RuntimeDep, SessionsDep, find_session, session_or_404, ws_key
from ..errors import AUTHED_ERRORS, ApiError
from ..schemas import CaptionOut, SessionIn, SessionOut, UtteranceIn, UtteranceOut
from ..throttle import MAX_FRAME_BYTES, Charge, session_bucket, take_all_async

if TYPE_CHECKING:
    from ...runtime import Runtime
    from ...sessions import Session

router = APIRouter(prefix="/v1/sessions", tags=["sessions"], responses=AUTHED_ERRORS)
log = logging.getLogger("trendlens.api.sessions")


@router.post("", response_model=SessionOut, status_code=201, summary="Start a glasses session")
async def create_session(request: Request, sessions: SessionsDep, key: ApiKey,
                         body: SessionIn | None = None) -> SessionOut:
    """The session belongs to the calling key: only it can drive, read or erase the session. The
    token only lets a HUD page watch; the link carries it after `#`, which no server or log sees."""
    body = body or SessionIn()
    session, token = await asyncio.to_thread(sessions.create, body.profile, body.frequency, owner=key)
    return SessionOut(id=session.id, token=token, profile=session.profile,
                      hud_url=f"{str(request.base_url).rstrip('/')}/hud/{session.id}#token={token}")


@router.delete("/{session_id}", status_code=204, summary="Erase a session and everything kept of it")
async def erase_session(session_id: str, runtime: RuntimeDep, key: ApiKey) -> Response:
    await session_or_404(runtime.sessions, session_id, key)
    await runtime.erase_session(session_id)
    return Response(status_code=204)


@router.post("/{session_id}/utterances", response_model=UtteranceOut, summary="One utterance in; captions out")
async def post_utterance(request: Request, session_id: str, body: UtteranceIn, runtime: RuntimeDep,
                         key: ApiKey) -> UtteranceOut:
    session = await session_or_404(runtime.sessions, session_id, key)
    wait = await take_all_async([(request.app.state.session_limiter, session_bucket(session.id))])
    if wait:
        raise ApiError(429, "rate limit exceeded for this session", headers={"Retry-After": str(max(1, round(wait)))})
    try:
        result = await runtime.handle_utterance(session, body.text, final=body.final)
    except InputError as exc:
        raise ApiError(422, str(exc)) from None
    return UtteranceOut(captions=[CaptionOut.model_validate(c.to_public()) for c in result.captions],
                        decision=result.decision, warning=result.warning)


@router.get("/{session_id}/captions", summary="What was shown, with each decision record")
async def list_captions(session_id: str, sessions: SessionsDep, key: ApiKey,
                        all: Annotated[bool, Query(description="include quiet decisions too")] = False,
                        limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict:
    await session_or_404(sessions, session_id, key)
    items = await asyncio.to_thread(sessions.history, session_id, shown_only=not all, limit=limit)
    return {"items": items}


@router.websocket("/{session_id}/stream")
async def stream(websocket: WebSocket, session_id: str) -> None:
    """Utterances in, each answered by its caption frames and then a decision frame; captions the
    session gets from anywhere else (HTTP, another socket, another instance) arrive as caption frames.
    Only the owner's key (Authorization header) drives a session; the HUD token only watches."""
    runtime = websocket.app.state.runtime
    key = await ws_key(websocket)
    if key is None:
        await websocket.close(code=4401, reason="the session owner's bearer key is required")
        return
    session = await find_session(runtime.sessions, session_id)
    if session is None or not session.owned_by(key):
        await websocket.close(code=4404, reason="no such session")
        return
    # One sender at a time. While this socket's own utterance is answered, the session's feed
    # waits: its copy of our own caption (the push step offers it before the answer is ready) is
    # then recognised and skipped, so each caption reaches the socket once, before its decision.
    sending = asyncio.Lock()
    sent: deque[tuple[str, str]] = deque(maxlen=64)  # (topic_id, created_at) of captions sent here
    feed = runtime.hud.subscribe(session_id)
    already = runtime.hud.last_caption(session_id)  # the feed opens with it, for HUD pages; not news here
    if already is not None:
        sent.append((str(already.topic_id), str(already.created_at)))
    try:  # subscribed before the handshake completes, so no caption slips between the two
        await websocket.accept()
    except BaseException:
        feed.close()
        raise

    async def forward_feed() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            async for message in feed:
                if message.get("type") != "caption":
                    continue  # `clear` is the HUD page's business
                async with sending:
                    key = (str(message.get("topic_id")), str(message.get("created_at")))
                    if key not in sent:
                        sent.append(key)
                        await websocket.send_json(message)

    forwarder = asyncio.create_task(forward_feed())
    # the session's bucket and its owner key's: the ones HTTP draws on
    state = websocket.app.state
    charges: list[Charge] = [(state.session_limiter, session_bucket(session.id)), (state.limiter, key)]
    try:
        while True:
            raw = await websocket.receive()
            if raw.get("type") == "websocket.disconnect":
                break
            refusal = await _refusal(raw, charges)
            if refusal is not None:
                code, message = refusal
                async with sending:
                    await websocket.send_json({"type": "error", "message": message})
                    await websocket.close(code=code, reason=message[:120])
                break
            async with sending:
                await _answer_frame(websocket, runtime, session, raw.get("text"), sent)
    except WebSocketDisconnect:
        pass
    finally:
        feed.close()
        forwarder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await forwarder


async def _refusal(raw: Mapping[str, Any], charges: list[Charge]) -> tuple[int, str] | None:
    """Why this frame ends the socket (close code, message), or None to answer it."""
    size = len(raw.get("bytes") or b"") + len((raw.get("text") or "").encode())
    if size > MAX_FRAME_BYTES:  # the server refuses these first; this holds behind any server
        return 1009, f"frame over {MAX_FRAME_BYTES} bytes"
    try:
        wait = await take_all_async(charges)
    except SharedStateError as exc:
        return 1013, str(exc)
    if wait:
        return 1008, f"rate limit exceeded; reconnect in {max(1, round(wait))} s"
    return None


async def _answer_frame(websocket: WebSocket, runtime: Runtime, session: Session, text: str | None,
                        sent: deque[tuple[str, str]]) -> None:
    if text is None:
        await websocket.send_json({"type": "error", "message": "send JSON text frames"})
        return
    try:
        msg = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        await websocket.send_json({"type": "error", "message": "frame is not valid JSON"})
        return
    if not isinstance(msg, dict) or msg.get("type") != "utterance":
        await websocket.send_json({"type": "error", "message": "expected {\"type\": \"utterance\", ...}"})
        return
    started = time.perf_counter()
    try:
        result = await runtime.handle_utterance(session, msg.get("text"), final=bool(msg.get("final", True)))
    except (InputError, OverloadError) as exc:
        await websocket.send_json({"type": "error", "message": str(exc)})
        return
    for caption in result.captions:
        public = caption.to_public()
        sent.append((str(public["topic_id"]), str(public["created_at"])))
        await websocket.send_json({"type": "caption", **public})
    if result.warning:
        await websocket.send_json({"type": "warning", "message": result.warning})
    await websocket.send_json({"type": "decision", "decision": result.decision,
                               "elapsed_ms": round((time.perf_counter() - started) * 1000, 1)})
