"""`/mcp` on `serve`: the MCP server over streamable HTTP, behind the API key check every route uses.

Stateless and JSON-answered: each POST carries its own request and gets its answer as one JSON
body, so any instance behind the load balancer can answer any call (no session stickiness, as
with the rest of the API) and proxies need no streaming. The key is checked by the API's own
`require_key` (same keys, same 401 envelope, same per-key rate limit) before the SDK sees the
request. The SDK's DNS-rebinding guard (a Host allow-list) is off: the service's public host
names are not known here, and a page that rebinds a name to this service still has no key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..mcp import build_server
from .deps import require_key
from .errors import ApiError, error_body

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["MCP_PATH", "McpEndpoint"]

MCP_PATH = "/mcp"


class _KeyChecked:
    """An ASGI app that answers 401 (or 429) exactly as the API does unless the request's key is accepted."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            require_key(Request(scope, receive))
        except ApiError as exc:
            response = JSONResponse(error_body(exc.status_code, str(exc.detail), exc.code),
                                    status_code=exc.status_code, headers=exc.headers)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class McpEndpoint:
    """The MCP server, its route for the API app, and the session manager the app's lifespan runs."""

    def __init__(self, get_runtime: Callable[[], Runtime]) -> None:
        async def runtime() -> Runtime:  # the app's lifespan has started it before any request
            return get_runtime()

        self.server = build_server(runtime)
        inner = self.server.streamable_http_app(
            streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self.route = Route(MCP_PATH, endpoint=_KeyChecked(inner), methods=["GET", "POST", "DELETE"],
                           include_in_schema=False)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Runs the SDK's session manager (once per app: the manager cannot be restarted)."""
        async with self.server.session_manager.run():
            yield
