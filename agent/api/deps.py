"""Dependencies shared by the routes: the runtime's parts, the caller's key, its session.

A route asks for the part it uses (`StoreDep`, `IndexDep`, `ChatDep` …), not the whole runtime;
`RuntimeDep` is for the few that span parts (an utterance, erasing a session)."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request, WebSocket
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from agent.answers.chat.deps import ChatDeps
from agent.collect.collector import Collector
from agent.index.topic_index import TopicIndex
from agent.live.sessions import Session, SessionStore

from ..engine.runner import WorkflowEngine
from ..metrics import Metrics
from ..runtime import Runtime
from ..store import Store
from .erase import ErasureGuard
from .errors import ApiError
from .security import KeyRing, TooManyGuesses
from .throttle import Limiter, LiveSessions

__all__ = ["ADMIN_ONLY", "HUD_PROTOCOL", "METRICS_ONLY", "AdminKey", "ApiKey", "ChatDep", "CollectorDep", "EngineDep",
           "IndexDep", "MetricsDep", "MetricsReader", "RuntimeDep", "SessionsDep", "StoreDep", "bearer",
           "erasure_guard", "find_session", "get_runtime", "live_sessions", "require_admin", "require_key",
           "require_metrics_reader", "session_or_404", "ws_key", "ws_token"]

# A HUD page's socket carries the session token as a WebSocket subprotocol (`token.<token>`, beside
# this one), not in its URL: URLs end up in access logs, the handshake's headers do not.
HUD_PROTOCOL = "trendlens.hud"
_TOKEN_PROTOCOL = "token."
T = TypeVar("T")


async def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def _part(pick: Callable[[Runtime], T]) -> Callable[[Request], Awaitable[T]]:
    """A dependency that hands a route one part of the app's runtime."""

    async def part(request: Request) -> T:
        return pick(request.app.state.runtime)

    return part


StoreDep = Annotated[Store, Depends(_part(lambda rt: rt.store))]
IndexDep = Annotated[TopicIndex, Depends(_part(lambda rt: rt.index))]  # current topics, stories; the one ranking
ChatDep = Annotated[ChatDeps, Depends(_part(lambda rt: rt.deps))]
SessionsDep = Annotated[SessionStore, Depends(_part(lambda rt: rt.sessions))]
CollectorDep = Annotated[Collector, Depends(_part(lambda rt: rt.collector))]
EngineDep = Annotated[WorkflowEngine, Depends(_part(lambda rt: rt.engine))]
MetricsDep = Annotated[Metrics, Depends(_part(lambda rt: rt.metrics))]


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


# Declared so the OpenAPI description names the scheme; the header is read below, with our own errors.
_BEARER = HTTPBearer(auto_error=False, scheme_name="ApiKey", description="A TrendLens API key: `Bearer <key>`")


def require_key(request: Request,
                _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)] = None) -> str:
    keys: KeyRing = request.app.state.keys
    token = bearer(request.headers.get("authorization"))
    if token is None:
        raise ApiError(401, "missing bearer token: send 'Authorization: Bearer <key>'",
                       headers={"WWW-Authenticate": "Bearer"})
    try:
        digest = keys.check(token, client=client_address(request))
    except TooManyGuesses as exc:
        raise ApiError(429, str(exc), headers={"Retry-After": str(exc.retry_after_s)}) from None
    if digest is None:
        raise ApiError(401, "invalid API key", headers={"WWW-Authenticate": "Bearer"})
    limiter: Limiter = request.app.state.limiter
    wait = limiter.take(digest)
    if wait:
        raise ApiError(429, "rate limit exceeded for this key", headers={"Retry-After": str(max(1, round(wait)))})
    return digest


ApiKey = Annotated[str, Depends(require_key)]

ADMIN_ONLY = ("this route needs an admin key (TRENDLENS_ADMIN_KEYS or `trendlens keys create --admin`); "
              "this key is a client key")


def require_admin(request: Request, key: ApiKey) -> str:
    """An admin key: one that may change what every tenant sees (ingest, workflows)."""
    keys: KeyRing = request.app.state.keys
    if keys.role(key) != "admin":
        raise ApiError(403, ADMIN_ONLY)
    return key


AdminKey = Annotated[str, Depends(require_admin)]

METRICS_ONLY = "/metrics needs TRENDLENS_METRICS_TOKEN or an admin key; this key is a client key"


def require_metrics_reader(request: Request,
                           _declared: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)] = None) -> None:
    """/metrics: its own token (a scraper that may read nothing else) or an admin key. The figures
    count every tenant's sessions and traffic, so a client key does not read them."""
    expected = request.app.state.metrics_token
    token = bearer(request.headers.get("authorization"))
    if expected is not None and token is not None and hmac.compare_digest(
            token.encode(), expected.get_secret_value().encode()):
        return
    keys: KeyRing = request.app.state.keys
    if keys.role(require_key(request)) != "admin":
        raise ApiError(403, METRICS_ONLY)


MetricsReader = Depends(require_metrics_reader)


def erasure_guard(app: Any) -> ErasureGuard:
    """The app's `ErasureGuard`, made (and told of every erasure) on first use."""
    guard: ErasureGuard | None = getattr(app.state, "erasure", None)
    if guard is None:
        guard = app.state.erasure = ErasureGuard(app.state.runtime)
        app.state.runtime.hud.on_erase(guard.forget)
    return guard


def live_sessions(app: Any) -> LiveSessions:
    """Which sessions of each key spoke lately (what a key's rate limit scales with)."""
    live: LiveSessions | None = getattr(app.state, "live_sessions", None)
    if live is None:
        live = app.state.live_sessions = LiveSessions()
    return live


def client_address(connection: Request | WebSocket) -> str:
    """Who is guessing keys: the peer address (behind nginx, the one uvicorn's proxy headers give)."""
    return connection.client.host if connection.client else "unknown"


async def find_session(sessions: SessionStore, session_id: str) -> Session | None:
    """The session from memory, else from the store off the event loop: an unknown id (anyone can
    send one) must not stall every other request while the store answers."""
    return sessions.peek(session_id) or await asyncio.to_thread(sessions.get, session_id)


async def session_or_404(sessions: SessionStore, session_id: str, key_hash: str) -> Session:
    """The caller's own session. Another key's is answered exactly like one that does not exist."""
    session = await find_session(sessions, session_id)
    if session is None or not session.owned_by(key_hash):
        raise ApiError(404, f"no session {session_id!r}")
    return session


async def ws_key(websocket: WebSocket) -> str | None:
    """The hash of the API key a WebSocket presents in its Authorization header, when accepted.

    An unknown key is looked up off the event loop; an address guessing keys gets None too."""
    keys: KeyRing = websocket.app.state.keys
    try:
        return await keys.check_async(bearer(websocket.headers.get("authorization")),
                                      client=client_address(websocket))
    except TooManyGuesses:
        return None


def ws_token(websocket: WebSocket) -> str | None:
    """The session token a HUD socket offers as its `token.<token>` subprotocol."""
    offered = websocket.scope.get("subprotocols") or []
    return next((p.removeprefix(_TOKEN_PROTOCOL) for p in offered if p.startswith(_TOKEN_PROTOCOL)), None)
