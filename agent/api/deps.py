"""Dependencies shared by the routes: the runtime, the caller's key, its session."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, WebSocket
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..runtime import Runtime
from ..sessions import Session
from .errors import ApiError
from .redis_limiter import RedisRateLimiter
from .security import KeyRing, RateLimiter, TooManyGuesses

__all__ = ["ApiKey", "RuntimeDep", "bearer", "get_runtime", "require_key", "session_or_404"]


def get_runtime(request: Request) -> Runtime:
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


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
    limiter: RateLimiter | RedisRateLimiter = request.app.state.limiter
    wait = limiter.take(digest)
    if wait:
        raise ApiError(429, "rate limit exceeded for this key", headers={"Retry-After": str(max(1, round(wait)))})
    return digest


ApiKey = Annotated[str, Depends(require_key)]


def client_address(connection: Request | WebSocket) -> str:
    """Who is guessing keys: the peer address (behind nginx, the one uvicorn's proxy headers give)."""
    return connection.client.host if connection.client else "unknown"


def session_or_404(runtime: Runtime, session_id: str) -> Session:
    session = runtime.sessions.get(session_id)
    if session is None:
        raise ApiError(404, f"no session {session_id!r}")
    return session


def ws_authorised(websocket: WebSocket, session: Session) -> bool:
    """A WebSocket may present the API key (header) or the session's own token (query)."""
    keys: KeyRing = websocket.app.state.keys
    if keys.check(bearer(websocket.headers.get("authorization"))):
        return True
    return session.check_token(websocket.query_params.get("token"))
