"""/hud/{session_id}: a browser page that looks like a glasses HUD, fed over a WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
from importlib import resources
from typing import Annotated

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse
from fastapi.security import APIKeyQuery

from ...captions.profiles import get_profile
from ..deps import RuntimeDep
from ..errors import ApiError, error_responses

router = APIRouter(tags=["hud"])
# The session's own token, from `POST /v1/sessions` (its `hud_url` carries it): a page link
# can hold a query parameter, not an Authorization header.
HudToken = APIKeyQuery(name="token", scheme_name="HudToken", auto_error=False,
                       description="The session's token, as returned by POST /v1/sessions (also in its hud_url)")
_PAGE = resources.files("agent.api").joinpath("static/hud.html").read_text(encoding="utf-8")


@router.get("/hud/{session_id}", response_class=HTMLResponse, summary="The HUD page for one session",
            responses=error_responses(401, 404, 422, json_only=True))
async def hud_page(session_id: str, runtime: RuntimeDep,
                   token: Annotated[str | None, Depends(HudToken)] = None) -> HTMLResponse:
    session = runtime.sessions.get(session_id)
    if session is None:
        raise ApiError(404, "no such session")
    if not session.check_token(token):
        raise ApiError(401, "this page needs the session's token: /hud/<id>?token=<token>")
    profile = get_profile(session.profile)
    config = {"session": session.id, "profile": profile.name, "lines": profile.max_lines,
              "width": profile.width_px or 640, "height": profile.height_px or 200}
    page = _PAGE.replace("__CONFIG__", html.escape(json.dumps(config), quote=True))
    return HTMLResponse(page, headers={
        "Content-Security-Policy": "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
                                   "connect-src 'self' ws: wss:",
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
    })


@router.websocket("/hud/{session_id}/ws")
async def hud_socket(websocket: WebSocket, session_id: str) -> None:
    runtime = websocket.app.state.runtime
    session = runtime.sessions.get(session_id)
    if session is None or not session.check_token(websocket.query_params.get("token")):
        await websocket.close(code=4401, reason="session token required")
        return
    subscription = runtime.hud.subscribe(session_id)  # before the handshake: nothing slips between
    try:
        await websocket.accept()
    except BaseException:
        subscription.close()
        raise

    async def watch_client() -> None:
        # the page sends nothing; a receive only tells us when it goes away
        with contextlib.suppress(WebSocketDisconnect):
            while (await websocket.receive()).get("type") != "websocket.disconnect":
                pass

    watcher = asyncio.create_task(watch_client())
    try:
        while not watcher.done():
            getter = asyncio.ensure_future(subscription.get())
            done, _ = await asyncio.wait({getter, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                break
            message = getter.result()
            if message is None:
                break
            await websocket.send_text(json.dumps(message, ensure_ascii=False))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        subscription.close()
        watcher.cancel()
