"""A MentraOS (formerly AugmentOS) app: transcripts in from the glasses, captions out.

    cloud ──POST /mentra/webhook {session_request}──▶ MentraApp ──200 {"status":"success"}
    MentraApp ──WebSocket──▶ cloud: tpa_connection_init → ack → subscription_update
    cloud ──data_stream (transcription)──▶ on_transcript(session, text, is_final) → [Caption]
    MentraApp ──display_event (reference_card | text_wall)──▶ cloud ──▶ glasses

The WebSocket is opened in a background task right after the webhook answers
(the cloud allows 5 s). Abnormal closes are retried (3 tries, 1 s doubling
backoff); closes 1000/1001/1008 and `tpa_connection_error` end the session.
`MentraApp` is also a `Display`, so captions made elsewhere reach the glasses too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ..captions.caption import Caption

__all__ = ["MentraApp", "MentraConfig", "TranscriptHandler"]

log = logging.getLogger(__name__)

TranscriptHandler = Callable[[str, str, bool], Awaitable[list[Caption]]]
"""on_transcript(session_id, text, is_final) → captions to show on that session's glasses."""

NORMAL_CLOSE_CODES = frozenset({1000, 1001, 1008})
_ACK_TYPES = frozenset({"tpa_connection_ack", "connection_ack"})
_ERROR_TYPES = frozenset({"tpa_connection_error", "connection_error"})


@dataclass(frozen=True, kw_only=True)
class MentraConfig:
    package_name: str
    api_key: str
    subscriptions: tuple[str, ...] = ("transcription:zh-CN", "transcription:en-US")
    layout: Literal["reference_card", "text_wall"] = "reference_card"
    open_timeout_s: float = 5.0
    ack_timeout_s: float = 5.0
    reconnect_tries: int = 3
    reconnect_backoff_s: float = 1.0
    ws_proxy: str | Literal[True] | None = True  # True: honour the environment's proxy settings


# --- webhook bodies (boundary: validated with pydantic) -----------------------------


class _SessionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["session_request"]
    sessionId: str = Field(min_length=1)
    userId: str | None = None
    mentraOSWebsocketUrl: str | None = None
    augmentOSWebsocketUrl: str | None = None


class _StopRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: Literal["stop_request"]
    sessionId: str = Field(min_length=1)
    reason: str | None = None


_WebhookBody: TypeAdapter[_SessionRequest | _StopRequest] = TypeAdapter(
    Annotated[_SessionRequest | _StopRequest, Field(discriminator="type")]
)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class _Session:
    """One glasses session: its WebSocket, reconnects and message loop."""

    def __init__(self, app: MentraApp, session_id: str, ws_url: str) -> None:
        self.app, self.session_id, self.ws_url = app, session_id, ws_url
        self.ws: ClientConnection | None = None
        self.ready = asyncio.Event()  # set once acked and subscribed
        self.stopped = False
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        cfg = self.app.config
        failures = 0
        while not self.stopped:
            code: int | None = None
            try:
                async with connect(
                    self.ws_url, open_timeout=cfg.open_timeout_s, proxy=cfg.ws_proxy
                ) as ws:
                    self.ws = ws
                    try:
                        if not await self._handshake(ws):
                            return
                        failures = 0
                        async for raw in ws:
                            await self._on_message(raw)
                    finally:
                        code = ws.close_code
                        self.ws = None
                        self.ready.clear()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd else 1006
            except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as exc:
                log.warning("mentra %s: cannot connect to %s: %s", self.session_id, self.ws_url, exc)
            if self.stopped or code in NORMAL_CLOSE_CODES:
                log.info("mentra %s: session ended (close code %s)", self.session_id, code)
                return
            failures += 1
            if failures > cfg.reconnect_tries:
                log.warning(
                    "mentra %s: giving up after %d reconnect tries", self.session_id, cfg.reconnect_tries
                )
                return
            delay = cfg.reconnect_backoff_s * 2 ** (failures - 1)
            log.info("mentra %s: closed with %s; reconnecting in %.1fs", self.session_id, code, delay)
            await asyncio.sleep(delay)

    async def _handshake(self, ws: ClientConnection) -> bool:
        cfg = self.app.config
        await ws.send(json.dumps({
            "type": "tpa_connection_init",
            "sessionId": self.session_id,
            "packageName": cfg.package_name,
            "apiKey": cfg.api_key,
            "timestamp": _now_iso(),
        }))
        async with asyncio.timeout(cfg.ack_timeout_s):
            while True:
                message = _parse(await ws.recv())
                kind = message.get("type")
                if kind in _ACK_TYPES:
                    break
                if kind in _ERROR_TYPES:
                    log.error(
                        "mentra %s: connection refused: %s (code %s)",
                        self.session_id, message.get("message"), message.get("code"),
                    )
                    self.stopped = True
                    await ws.close()
                    return False
        await ws.send(json.dumps({
            "type": "subscription_update",
            "packageName": cfg.package_name,
            "sessionId": self.session_id,
            "subscriptions": list(cfg.subscriptions),
        }))
        self.ready.set()
        return True

    async def _on_message(self, raw: str | bytes) -> None:
        message = _parse(raw)
        if message.get("type") != "data_stream":
            return
        stream = str(message.get("streamType", ""))
        data = message.get("data")
        is_transcript = stream == "transcription" or stream.startswith("transcription:")
        if not is_transcript or not isinstance(data, dict):
            return
        text = data.get("text")
        if not isinstance(text, str) or not text.strip() or self.app.on_transcript is None:
            return
        try:
            captions = await self.app.on_transcript(self.session_id, text, bool(data.get("isFinal")))
        except Exception:  # one bad transcript must not end the session
            log.exception("mentra %s: on_transcript failed", self.session_id)
            return
        for caption in captions:
            await self.send_caption(caption)

    async def send_caption(self, caption: Caption) -> bool:
        ws = self.ws
        if ws is None or not self.ready.is_set():
            return False
        try:
            await ws.send(json.dumps(self.app.display_event(self.session_id, caption), ensure_ascii=False))
        except ConnectionClosed:
            return False
        return True

    async def clear(self) -> None:
        ws = self.ws
        if ws is not None and self.ready.is_set():
            event = self.app.layout_event(self.session_id, {"layoutType": "text_wall", "text": ""}, 0)
            with contextlib.suppress(ConnectionClosed):
                await ws.send(json.dumps(event))

    async def stop(self) -> None:
        self.stopped = True
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.close()
        if self.task is not None and self.task is not asyncio.current_task():
            try:
                await asyncio.wait_for(self.task, 2.0)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


def _parse(raw: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return message if isinstance(message, dict) else {}


class MentraApp:
    """MentraOS app server + `Display`. Mount `app.router` on the FastAPI app."""

    name = "mentra"

    def __init__(self, config: MentraConfig, on_transcript: TranscriptHandler | None = None) -> None:
        self.config = config
        self.on_transcript = on_transcript
        self.sessions: dict[str, _Session] = {}
        self.router = APIRouter(tags=["mentra"])
        self.router.add_api_route("/mentra/webhook", self._webhook, methods=["POST"])

    async def _webhook(self, request: Request) -> JSONResponse:
        try:
            body = _WebhookBody.validate_json(await request.body())
        except ValidationError as exc:
            return JSONResponse({"status": "error", "message": _first_error(exc)}, status_code=400)
        if isinstance(body, _StopRequest):
            await self.stop_session(body.sessionId)
            return JSONResponse({"status": "success"})
        url = body.mentraOSWebsocketUrl or body.augmentOSWebsocketUrl
        if not url:
            return JSONResponse(
                {"status": "error", "message": "mentraOSWebsocketUrl or augmentOSWebsocketUrl is required"},
                status_code=400,
            )
        await self.start_session(body.sessionId, url)
        return JSONResponse({"status": "success"})

    async def start_session(self, session_id: str, ws_url: str) -> None:
        """Open (or reopen) the session's WebSocket in the background."""
        await self.stop_session(session_id)
        session = _Session(self, session_id, ws_url)
        session.task = asyncio.create_task(self._run_session(session), name=f"mentra-{session_id}")
        self.sessions[session_id] = session

    async def _run_session(self, session: _Session) -> None:
        try:
            await session.run()
        finally:
            if self.sessions.get(session.session_id) is session:
                del self.sessions[session.session_id]

    async def stop_session(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None:
            await session.stop()

    async def wait_ready(self, session_id: str, timeout_s: float = 5.0) -> None:
        """Wait until the session is connected, acknowledged and subscribed."""
        async with asyncio.timeout(timeout_s):
            while (session := self.sessions.get(session_id)) is None:
                await asyncio.sleep(0.01)
            await session.ready.wait()

    def layout_event(self, session_id: str, layout: dict[str, Any], duration_ms: int) -> dict[str, Any]:
        return {
            "type": "display_event",
            "packageName": self.config.package_name,
            "sessionId": session_id,
            "view": "main",
            "layout": layout,
            "durationMs": duration_ms,
            "timestamp": _now_iso(),
        }

    def display_event(self, session_id: str, caption: Caption) -> dict[str, Any]:
        """The `display_event` for a caption: a card (first line as its title) or a text wall."""
        lines = list(caption.lines) or [caption.text]
        if self.config.layout == "reference_card" and len(lines) > 1:
            layout = {"layoutType": "reference_card", "title": lines[0], "text": "\n".join(lines[1:])}
        else:
            layout = {"layoutType": "text_wall", "text": "\n".join(lines)}
        return self.layout_event(session_id, layout, caption.ttl_ms)

    async def show(self, caption: Caption) -> bool:
        """Send to the caption's session, or to every session when it names none."""
        if caption.expired():
            return False
        if caption.session_id is not None:
            session = self.sessions.get(caption.session_id)
            return await session.send_caption(caption) if session else False
        results = [await s.send_caption(caption) for s in tuple(self.sessions.values())]
        return any(results)

    async def clear(self, session_id: str | None = None) -> None:
        targets = [self.sessions[session_id]] if session_id in self.sessions else (
            list(self.sessions.values()) if session_id is None else []
        )
        for session in targets:
            await session.clear()

    async def aclose(self) -> None:
        for session_id in tuple(self.sessions):
            await self.stop_session(session_id)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "body"
    return f"{where}: {err.get('msg', 'invalid')}"
