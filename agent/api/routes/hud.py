"""/hud/{session_id}: a browser page that looks like a glasses HUD, fed over a WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import json
from importlib import resources

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse

from ...captions.profiles import get_profile
from ..deps import HUD_PROTOCOL, find_session, ws_token
from ..erase import ERASED_CLOSE
from ..errors import error_responses

router = APIRouter(tags=["hud"])
_PAGE = resources.files("agent.api").joinpath("static/hud.html").read_text(encoding="utf-8")


@router.get("/hud/{session_id}", response_class=HTMLResponse, summary="The HUD page for one session",
            responses=error_responses(422, json_only=True))
async def hud_page(session_id: str) -> HTMLResponse:
    """The same page for every id, known or not: it looks nothing up, so it tells no one whether a
    session exists. Its script reads the token from the link's `#token=` and hands it to the socket,
    which checks it and sends the session's display profile."""
    return HTMLResponse(_PAGE, headers={
        "Content-Security-Policy": "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
                                   "connect-src 'self' ws: wss:",
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
    })


@router.websocket("/hud/{session_id}/ws")
async def hud_socket(websocket: WebSocket, session_id: str) -> None:
    """Watch-only: the session's captions out, nothing in. The token comes as the `token.<token>`
    subprotocol; a wrong token and an unknown session are refused alike."""
    runtime = websocket.app.state.runtime
    session = await find_session(runtime.sessions, session_id)
    if session is None or not session.check_token(ws_token(websocket)):
        await websocket.close(code=4404, reason="no such session, or not its token")
        return
    subscription = runtime.hud.subscribe(session_id)  # before the handshake: nothing slips between
    try:
        offered = websocket.scope.get("subprotocols") or []
        await websocket.accept(subprotocol=HUD_PROTOCOL if HUD_PROTOCOL in offered else None)
        profile = get_profile(session.profile)
        await websocket.send_json({"type": "hello", "session_id": session.id, "profile": profile.name,
                                   "lines": profile.max_lines, "width": profile.width_px or 640,
                                   "height": profile.height_px or 200})
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
            if message.get("type") == "erased":  # the owner erased the session: nothing more to watch
                code, reason = ERASED_CLOSE
                await websocket.close(code=code, reason=reason)
                break
            await websocket.send_text(json.dumps(message, ensure_ascii=False))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        subscription.close()
        watcher.cancel()
