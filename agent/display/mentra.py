"""A MentraOS (formerly AugmentOS) app: transcripts in from the glasses, captions out.

    cloud ──POST /webhook {session_request}──▶ MentraApp ──200 {"status":"success"}
    MentraApp ──WebSocket──▶ cloud: tpa_connection_init → ack → subscription_update
    cloud ──data_stream (transcription:<lang>)──▶ one copy per utterance ──▶ on_transcript(Heard) → [Caption]
    MentraApp ──display_event (reference_card | text_wall)──▶ cloud ──▶ glasses

The cloud calls `{Public URL}/webhook` (newer SDKs: `/api/_mentraos/webhook`);
`/mentra/webhook` stays as an alias. The webhook is unauthenticated: the cloud
signs nothing and the SDK checks nothing, and anyone can guess a session id
(`<userId>-<packageName>`, the userId often an e-mail). So a webhook call only
ever *proposes*; the cloud's answer on the WebSocket decides:

- `session_request` opens a candidate connection; it becomes the session's
  connection only once the cloud acknowledged our API key on it
  (`tpa_connection_ack`). A live, acknowledged connection is replaced by
  nothing less, so a forged request cannot end or hijack a wearer's session.
- `stop_request` closes nothing: the session ends when the cloud closes its
  socket (the request only stops reconnecting after that close).
- The first frame carries our API key, so only hosts on `allowed_hosts` are
  ever connected to, and plain `ws://` only on loopback.
- Connections (live and candidates) are bounded: `max_sessions` in all and
  `max_candidates` per session id; past either the webhook answers 429.
- Webhook calls are bounded too: `max_webhooks` handled at once (503 past it, at
  once), each body within `webhook_read_timeout_s` and `max_webhook_bytes`.
- The session id is the caller's choice: logs show it through `log_field`.

The WebSocket is opened in a background task right after the webhook answers
(the cloud allows 5 s). Abnormal closes are retried (3 tries, 1 s doubling
backoff); closes 1000/1001/1008 and `tpa_connection_error` end the session. The ack names the glasses
(`capabilities.modelName`), which picks the caption profile, and their display (`capabilities.display`:
`maxTextLines`, bitmaps), re-read on `capabilities_update`; its settings say whether the wearer's own
lines are captioned (mentra_device.py), re-read on `settings_update`. Captions reach the
glasses through `MentraApp.display` (mentra_display.py), a `Display` like any other,
so captions made elsewhere reach the glasses too.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI, SecurityError
from websockets.uri import parse_uri

from ..captions.caption import Caption
from ..logs import log_field
from .mentra_device import DisplayCaps, SpeakerFilter, parse_caps
from .mentra_display import MentraDisplay
from .mentra_speech import Heard, Transcript, UtteranceAssembler, parse_transcript

__all__ = ["DEFAULT_ALLOWED_HOSTS", "WEBHOOK_PATHS", "Heard", "MentraApp", "MentraConfig", "TranscriptHandler",
           "host_allowed", "profile_for_model"]

log = logging.getLogger(__name__)

TranscriptHandler = Callable[[Heard], Awaitable[list[Caption]]]
"""on_transcript(heard) → captions to show on that session's glasses."""

# Where the cloud POSTs session requests: `{Public URL}/webhook`, the newer SDKs'
# path, and our earlier path kept as an alias.
WEBHOOK_PATHS = ("/webhook", "/api/_mentraos/webhook", "/mentra/webhook")

# The MentraOS cloud (and its AugmentOS name) plus loopback for a local cloud.
# "*.example" matches the domain's subdomains, a bare name only itself.
DEFAULT_ALLOWED_HOSTS = ("augmentos.cloud", "*.augmentos.cloud", "mentra.glass", "*.mentra.glass",
                         "localhost", "127.0.0.1", "::1")

NORMAL_CLOSE_CODES = frozenset({1000, 1001, 1008})
_ACK_TYPES = frozenset({"tpa_connection_ack", "connection_ack"})
_ERROR_TYPES = frozenset({"tpa_connection_error", "connection_error"})


@dataclass(frozen=True, kw_only=True)
class MentraConfig:
    package_name: str
    api_key: str
    languages: tuple[str, ...] = ("zh-CN", "en-US")  # one recogniser each; the first leads
    layout: Literal["reference_card", "text_wall"] = "reference_card"
    allowed_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS
    merge_window_s: float = 0.4  # how long one utterance waits for its other-language copies
    open_timeout_s: float = 5.0
    ack_timeout_s: float = 5.0
    reconnect_tries: int = 3
    reconnect_backoff_s: float = 1.0
    ws_proxy: str | Literal[True] | None = True  # True: honour the environment's proxy settings
    # Bounds on what unauthenticated webhook calls can start: connections in all (live and
    # candidates), and candidates waiting for the cloud's ack per session id.
    max_sessions: int = 500
    max_candidates: int = 2
    # Webhook calls handled at once, and how long each may take to send its body: a flood of
    # slow calls must not hold the server's request slots (past either: 503 / 408 at once).
    max_webhooks: int = 32
    webhook_read_timeout_s: float = 5.0
    max_webhook_bytes: int = 64 * 1024  # a session request is a few hundred bytes

    @property
    def subscriptions(self) -> tuple[str, ...]:
        return tuple(f"transcription:{lang}" for lang in self.languages)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_allowed(url: str, allowed: Sequence[str]) -> bool:
    """Whether `url` is a wss URL (ws only to loopback) whose host is on the allowlist.

    Our API key is the first frame sent there: in clear text it would be readable on the way."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    if not host or not (parts.scheme == "wss" or (parts.scheme == "ws" and _is_loopback(host))):
        return False
    for entry in allowed:
        entry = entry.lower().rstrip(".")
        if host == entry or (entry.startswith("*.") and host.endswith(entry[1:])):
            return True
    return False


class _SameOriginConnect(connect):
    """`connect` following a handshake redirect only within the URL's own origin.

    websockets follows cross-host redirects and strips only its own credential headers; ours is
    the first frame sent once the socket is open, so a redirect to another host (even an allowed
    one) would hand that host our API key."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        target = super().process_redirect(exc)
        if isinstance(target, Exception):
            return target
        old, new = self.ws_uri, parse_uri(target)
        if (old.secure, old.host, old.port) != (new.secure, new.host, new.port):
            return SecurityError(f"refused a redirect from {old.host}:{old.port} to {new.host}:{new.port}: "
                                 "the API key goes only to the host the session request named")
        return target


def profile_for_model(model_name: str | None) -> str:
    """The caption profile for the glasses the ack names (`capabilities.modelName`)."""
    name = (model_name or "").lower()
    if "g1" in name.split() or name.endswith("g1"):
        return "even-g1"
    if "z100" in name:
        return "vuzix-z100"
    if "frame" in name.split() and "brilliant" in name:  # "Brilliant Labs Frame": no CJK in its font
        return "frame"
    return "mentra-generic"


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
        self.label = log_field(session_id)  # the id as logs show it: the webhook's caller chose it
        self.ws: ClientConnection | None = None
        self.ready = asyncio.Event()  # set once acked and subscribed
        self.stopped = False
        self.stop_requested = False  # a stop_request came: end at the cloud's next close, not before
        self.acked = False  # the cloud accepted our key on this connection at least once
        self.task: asyncio.Task[None] | None = None
        self.connects = 0  # connection attempts, for logs and tests
        self.profile = "mentra-generic"  # until the ack names the glasses
        self.caps: DisplayCaps | None = None  # the ack's `capabilities.display`, when it sends one
        self.speakers = SpeakerFilter()  # the wearer's setting: caption only other speakers' lines
        # the input side: which copy of an utterance is heard, and when (mentra_speech.py)
        self.speech = UtteranceAssembler(self._hear, languages=app.config.languages,
                                         merge_window_s=app.config.merge_window_s, label=self.label)

    async def run(self) -> None:
        cfg = self.app.config
        failures = 0
        while not self.stopped:
            code: int | None = None
            self.connects += 1
            try:
                async with _SameOriginConnect(
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
                log.warning("mentra %s: cannot connect to %s: %s", self.label, log_field(self.ws_url), log_field(exc))
            if self.stopped or self.stop_requested or code in NORMAL_CLOSE_CODES:
                log.info("mentra %s: session ended (close code %s)", self.label, code)
                return
            failures += 1
            if failures > cfg.reconnect_tries:
                log.warning(
                    "mentra %s: giving up after %d reconnect tries", self.label, cfg.reconnect_tries
                )
                return
            delay = cfg.reconnect_backoff_s * 2 ** (failures - 1)
            log.info("mentra %s: closed with %s; reconnecting in %.1fs", self.label, code, delay)
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
                    self._capabilities(message.get("capabilities"), _model_name(message))
                    self.speakers.update(message.get("settings"))
                    log.info("mentra %s: connected; glasses %s → profile %s",
                             self.label, log_field(_model_name(message)), self.profile)
                    self.acked = True
                    self.app._acknowledged(self)
                    break
                if kind in _ERROR_TYPES:
                    log.error(
                        "mentra %s: connection refused: %s (code %s)",
                        self.label, log_field(message.get("message")), log_field(message.get("code")),
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

    @property
    def language(self) -> str | None:
        return self.speech.language

    def _capabilities(self, capabilities: Any, model_name: str | None) -> None:
        self.profile = profile_for_model(model_name)
        self.caps = parse_caps(capabilities)

    async def _on_message(self, raw: str | bytes) -> None:
        message = _parse(raw)
        kind = message.get("type")
        if kind == "capabilities_update":  # other glasses connected mid-session
            caps = message.get("capabilities")
            model = message.get("modelName") or (caps.get("modelName") if isinstance(caps, dict) else None)
            self._capabilities(caps, model if isinstance(model, str) else None)
            log.info("mentra %s: glasses now %s → profile %s", self.label, log_field(model), self.profile)
            return
        if kind == "settings_update":
            self.speakers.update(message.get("settings"))
            return
        transcript = parse_transcript(message)
        if transcript is None or self.app.on_transcript is None:
            return
        if not self.speakers.hears(transcript.speaker_id):
            return  # the wearer's own line, and the session captions only other speakers
        await self.speech.feed(transcript)

    async def _hear(self, transcript: Transcript) -> None:
        hear = self.app.on_transcript
        if hear is None:  # an app without a handler hears nothing (`_on_message` feeds nothing then)
            return
        heard = Heard(session_id=self.session_id, text=transcript.text, is_final=transcript.is_final,
                      language=transcript.language, profile=self.profile, speaker_id=transcript.speaker_id)
        try:
            captions = await hear(heard)
        except Exception:  # one bad transcript must not end the session
            log.exception("mentra %s: on_transcript failed", self.label)
            return
        for caption in captions:  # the handler's answer for these glasses, shown by the display
            await self.app.display.send(self.session_id, caption)

    async def send(self, event: dict[str, Any]) -> bool:
        """Send one event on this session's WebSocket; False when it is not connected and ready."""
        ws = self.ws
        if ws is None or not self.ready.is_set():
            return False
        try:
            await ws.send(json.dumps(event, ensure_ascii=False))
        except ConnectionClosed:
            return False
        return True

    async def stop(self) -> None:
        self.stopped = True
        self.speech.close()
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.close()
        if self.task is not None and self.task is not asyncio.current_task():
            try:
                await asyncio.wait_for(self.task, 2.0)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


def _model_name(ack: dict[str, Any]) -> str | None:
    caps = ack.get("capabilities")
    name = caps.get("modelName") if isinstance(caps, dict) else None
    return name if isinstance(name, str) else None


def _parse(raw: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return {}
    return message if isinstance(message, dict) else {}


class MentraApp:
    """The MentraOS app server: the session webhook and each session's WebSocket.

    Transcripts go in through `on_transcript` (the input side, one per utterance by
    mentra_speech.py's rule); captions go out through `app.display`, a `MentraDisplay`
    (mentra_display.py), which is the only part that is a `Display`. Mount `app.router`
    on the FastAPI app.
    """

    def __init__(self, config: MentraConfig, on_transcript: TranscriptHandler | None = None) -> None:
        self.config = config
        self.on_transcript = on_transcript
        self.sessions: dict[str, _Session] = {}  # the acknowledged connection of each session
        self.candidates: dict[str, set[_Session]] = {}  # connections still waiting for the cloud's ack
        self._closing: set[asyncio.Task[None]] = set()  # replaced connections being closed
        self._webhook_slots = asyncio.Semaphore(config.max_webhooks)
        self.display = MentraDisplay(self)
        self.router = APIRouter(tags=["mentra"])
        for path in WEBHOOK_PATHS:
            self.router.add_api_route(path, self._webhook, methods=["POST"], summary="MentraOS session webhook",
                                      include_in_schema=path == WEBHOOK_PATHS[0])

    async def _webhook(self, request: Request) -> JSONResponse:
        """One webhook call, refused at once while `max_webhooks` others are being handled."""
        cfg = self.config
        if self._webhook_slots.locked():
            return JSONResponse({"status": "error", "message": f"{cfg.max_webhooks} webhook calls are already being "
                                 "handled; try again shortly"}, status_code=503, headers={"Retry-After": "1"})
        async with self._webhook_slots:
            try:
                async with asyncio.timeout(cfg.webhook_read_timeout_s):
                    raw = await _read_body(request, cfg.max_webhook_bytes)
            except TimeoutError:
                return JSONResponse({"status": "error", "message": "the request body did not arrive within "
                                     f"{cfg.webhook_read_timeout_s:g} s"}, status_code=408)
            if raw is None:
                return JSONResponse({"status": "error", "message": f"body over {cfg.max_webhook_bytes} bytes"},
                                    status_code=413)
            return await self._handle_webhook(raw)

    async def _handle_webhook(self, raw: bytes) -> JSONResponse:
        try:
            body = _WebhookBody.validate_json(raw)
        except ValidationError as exc:
            return JSONResponse({"status": "error", "message": _first_error(exc)}, status_code=400)
        if isinstance(body, _StopRequest):
            self.request_stop(body.sessionId)
            return JSONResponse({"status": "success"})
        url = body.mentraOSWebsocketUrl or body.augmentOSWebsocketUrl
        if not url:
            return JSONResponse(
                {"status": "error", "message": "mentraOSWebsocketUrl or augmentOSWebsocketUrl is required"},
                status_code=400,
            )
        if not host_allowed(url, self.config.allowed_hosts):
            # the key would go to whoever named this URL (or travel in clear): refuse before connecting
            log.warning("mentra %s: refused WebSocket URL (not wss:// on an allowed host, nor ws:// on loopback)",
                        log_field(body.sessionId))
            return JSONResponse({"status": "error", "message": "WebSocket URL must be wss:// on an allowed MentraOS "
                                 "cloud host (ws:// only on loopback)"}, status_code=403)
        refused = self._over_bounds(body.sessionId)
        if refused:
            log.warning("mentra %s: session request refused: %s", log_field(body.sessionId), refused)
            return JSONResponse({"status": "error", "message": refused}, status_code=429, headers={"Retry-After": "5"})
        await self.start_session(body.sessionId, url)
        return JSONResponse({"status": "success"})

    def _over_bounds(self, session_id: str) -> str | None:
        cfg = self.config
        if len(self.sessions) + sum(len(c) for c in self.candidates.values()) >= cfg.max_sessions:
            return f"too many MentraOS connections ({cfg.max_sessions}); try again shortly"
        if len(self.candidates.get(session_id, ())) >= cfg.max_candidates:
            return f"{cfg.max_candidates} connections for this session already wait for the cloud's ack"
        return None

    async def start_session(self, session_id: str, ws_url: str) -> None:
        """Open a candidate connection in the background; it takes the session over once acknowledged."""
        session = _Session(self, session_id, ws_url)
        self.candidates.setdefault(session_id, set()).add(session)
        session.task = asyncio.create_task(self._run_session(session), name=f"mentra-{session_id}")

    def _acknowledged(self, session: _Session) -> None:
        """The cloud accepted our key on `session`'s connection: it is now the session's connection."""
        pending = self.candidates.get(session.session_id)
        if pending is not None:
            pending.discard(session)
            if not pending:
                del self.candidates[session.session_id]
        old = self.sessions.get(session.session_id)
        self.sessions[session.session_id] = session
        if old is not None and old is not session:
            log.info("mentra %s: the cloud acknowledged a new connection; closing the previous one",
                     session.label)
            closing = asyncio.create_task(old.stop())
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)

    async def _run_session(self, session: _Session) -> None:
        try:
            await session.run()
        finally:
            if self.sessions.get(session.session_id) is session:
                del self.sessions[session.session_id]
            pending = self.candidates.get(session.session_id)
            if pending is not None:
                pending.discard(session)
                if not pending:
                    del self.candidates[session.session_id]

    def request_stop(self, session_id: str) -> None:
        """An (unauthenticated) stop_request: end at the cloud's next close of the socket, not now."""
        for session in (self.sessions.get(session_id), *self.candidates.get(session_id, ())):
            if session is not None:
                session.stop_requested = True
        log.info("mentra %s: stop requested; the session ends when the cloud closes it", log_field(session_id))

    async def stop_session(self, session_id: str) -> None:
        """Close the session's connections now (shutdown; not reachable from the webhook)."""
        for session in (self.sessions.pop(session_id, None), *self.candidates.pop(session_id, ())):
            if session is not None:
                await session.stop()

    async def wait_ready(self, session_id: str, timeout_s: float = 5.0) -> None:
        """Wait until the session is connected, acknowledged and subscribed."""
        async with asyncio.timeout(timeout_s):
            while (session := self.sessions.get(session_id)) is None:
                await asyncio.sleep(0.01)
            await session.ready.wait()

    async def aclose(self) -> None:
        for session_id in {*self.sessions, *self.candidates}:
            await self.stop_session(session_id)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The body, or None once it passes `limit` bytes (nothing more is read then)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "body"
    return f"{where}: {err.get('msg', 'invalid')}"
