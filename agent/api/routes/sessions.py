"""/v1/sessions: create a glasses session, feed it utterances, watch its captions."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Annotated

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect

from ...errors import InputError, OverloadError
from ..deps import ApiKey, RuntimeDep, session_or_404, ws_authorised
from ..errors import AUTHED_ERRORS, ApiError
from ..schemas import CaptionOut, SessionIn, SessionOut, UtteranceIn, UtteranceOut

router = APIRouter(prefix="/v1/sessions", tags=["sessions"], responses=AUTHED_ERRORS)
log = logging.getLogger("trendlens.api.sessions")


@router.post("", response_model=SessionOut, status_code=201, summary="Start a glasses session")
async def create_session(request: Request, runtime: RuntimeDep, _: ApiKey, body: SessionIn | None = None) -> SessionOut:
    body = body or SessionIn()
    session, token = await asyncio.to_thread(runtime.sessions.create, body.profile, body.frequency)
    return SessionOut(id=session.id, token=token, profile=session.profile,
                      hud_url=f"{str(request.base_url).rstrip('/')}/hud/{session.id}?token={token}")


@router.post("/{session_id}/utterances", response_model=UtteranceOut, summary="One utterance in; captions out")
async def post_utterance(session_id: str, body: UtteranceIn, runtime: RuntimeDep, _: ApiKey) -> UtteranceOut:
    session = session_or_404(runtime, session_id)
    try:
        result = await runtime.handle_utterance(session, body.text, final=body.final)
    except InputError as exc:
        raise ApiError(422, str(exc)) from None
    return UtteranceOut(captions=[CaptionOut.model_validate(c.to_public()) for c in result.captions],
                        decision=result.decision, warning=result.warning)


@router.get("/{session_id}/captions", summary="What was shown, with each decision record")
async def list_captions(session_id: str, runtime: RuntimeDep, _: ApiKey,
                        all: Annotated[bool, Query(description="include quiet decisions too")] = False,
                        limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict:
    session_or_404(runtime, session_id)
    items = await asyncio.to_thread(runtime.sessions.history, session_id, shown_only=not all, limit=limit)
    return {"items": items}


@router.websocket("/{session_id}/stream")
async def stream(websocket: WebSocket, session_id: str) -> None:
    runtime = websocket.app.state.runtime
    session = runtime.sessions.get(session_id)
    if session is None:
        await websocket.close(code=4404, reason="no such session")
        return
    if not ws_authorised(websocket, session):
        await websocket.close(code=4401, reason="bearer key or session token required")
        return
    await websocket.accept()
    try:
        while True:
            raw = await websocket.receive()
            if raw.get("type") == "websocket.disconnect":
                break
            text = raw.get("text")
            if text is None:
                await websocket.send_json({"type": "error", "message": "send JSON text frames"})
                continue
            try:
                msg = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                await websocket.send_json({"type": "error", "message": "frame is not valid JSON"})
                continue
            if not isinstance(msg, dict) or msg.get("type") != "utterance":
                await websocket.send_json({"type": "error", "message": "expected {\"type\": \"utterance\", ...}"})
                continue
            started = time.perf_counter()
            try:
                result = await runtime.handle_utterance(session, msg.get("text"), final=bool(msg.get("final", True)))
            except (InputError, OverloadError) as exc:
                await websocket.send_json({"type": "error", "message": str(exc)})
                continue
            for caption in result.captions:
                await websocket.send_json({"type": "caption", **caption.to_public()})
            if result.warning:
                await websocket.send_json({"type": "warning", "message": result.warning})
            await websocket.send_json({"type": "decision", "decision": result.decision,
                                       "elapsed_ms": round((time.perf_counter() - started) * 1000, 1)})
    except WebSocketDisconnect:
        pass
