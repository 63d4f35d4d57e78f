"""/v1/sessions: create a glasses session, feed it utterances, watch its captions."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, WebSocket

from ...errors import InputError
from ..deps import ApiKey, RuntimeDep, SessionsDep, erasure_guard, find_session, live_sessions, session_or_404, ws_key
from ..erase import SessionErased, erase_everywhere
from ..errors import AUTHED_ERRORS, ApiError
from ..schemas import CaptionOut, DecisionOut, SessionIn, SessionOut, UtteranceIn, UtteranceOut
from ..stream_socket import StreamSocket
from ..throttle import Charge, session_bucket, take_all_async

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
async def erase_session(request: Request, session_id: str, runtime: RuntimeDep, key: ApiKey) -> Response:
    """Its rows, its shared state, its captions, an utterance in flight, and its sockets on every
    instance (closed with 4410 "session erased"). Erased, it is answered 404 like any unknown id."""
    await session_or_404(runtime.sessions, session_id, key)
    await erase_everywhere(runtime, erasure_guard(request.app), session_id)
    return Response(status_code=204)


@router.post("/{session_id}/utterances", response_model=UtteranceOut, summary="One utterance in; captions out")
async def post_utterance(request: Request, session_id: str, body: UtteranceIn, runtime: RuntimeDep,
                         key: ApiKey) -> UtteranceOut:
    session = await session_or_404(runtime.sessions, session_id, key)
    live_sessions(request.app).touch(key, session.id)
    wait = await take_all_async([(request.app.state.session_limiter, session_bucket(session.id))])
    if wait:
        raise ApiError(429, "rate limit exceeded for this session", headers={"Retry-After": str(max(1, round(wait)))})
    try:
        result = await erasure_guard(request.app).run(
            session, runtime.handle_utterance(session, body.text, final=body.final))
    except InputError as exc:
        raise ApiError(422, str(exc)) from None
    except SessionErased:  # erased while it was being answered: nothing of it is answered or kept
        raise ApiError(404, f"no session {session_id!r}") from None
    return UtteranceOut(captions=[CaptionOut.model_validate(c.to_public()) for c in result.captions],
                        decision=DecisionOut.of(result.decision) if result.decision is not None else None,
                        warning=result.warning)


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
    Only the owner's key (Authorization header) drives a session; the HUD token only watches. A frame
    over the rate gets an error frame (`code: rate_limited`, `retry_after_ms`) and the socket stays
    open; an erased session's sockets close with 4410 (agent/api/stream_socket.py)."""
    runtime = websocket.app.state.runtime
    key = await ws_key(websocket)
    if key is None:
        await websocket.close(code=4401, reason="the session owner's bearer key is required")
        return
    session = await find_session(runtime.sessions, session_id)
    if session is None or not session.owned_by(key):
        await websocket.close(code=4404, reason="no such session")
        return
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
    state = websocket.app.state
    live = live_sessions(websocket.app)
    live.touch(key, session.id)
    # the session's bucket and its owner key's: the ones HTTP draws on
    charges: list[Charge] = [(state.session_limiter, session_bucket(session.id)), (state.limiter, key)]
    try:
        await StreamSocket(websocket, runtime, session, key=key, feed=feed, charges=charges,
                           guard=erasure_guard(websocket.app), live=live, sent=sent, keys=state.keys).run()
    finally:
        feed.close()
