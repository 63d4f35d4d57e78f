"""`/mcp` on `serve`: the MCP server over streamable HTTP, behind the API key check every route uses.

Stateless and JSON-answered: each POST carries its own request and gets its answer as one JSON
body, so any instance behind the load balancer can answer any call (no session stickiness, as
with the rest of the API) and proxies need no streaming. The key is checked by the API's own
`require_key` (same keys, same 401 envelope, same per-key rate limit) before the SDK sees the
request. The SDK's DNS-rebinding guard (a Host allow-list) is off: the service's public host
names are not known here, and a page that rebinds a name to this service still has no key.
"""

from __future__ import annotations

import asyncio
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


class McpEndpoint:
    """The ASGI endpoint at `/mcp`: the API key check, then the MCP server's streamable-HTTP app.

    The SDK's session manager runs once per instance; an app whose lifespan runs again (tests
    start one app several times) gets a new one each time from `running`.
    """

    def __init__(self, get_runtime: Callable[[], Runtime]) -> None:
        async def runtime() -> Runtime:  # the app's lifespan has started it before any request
            return get_runtime()

        self.server = build_server(runtime)
        self._app: ASGIApp | None = None
        self.route = Route(MCP_PATH, endpoint=self, methods=["GET", "POST", "DELETE"], include_in_schema=False)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve `/mcp` for the life of the app (a new session manager each time)."""
        self._app = self.server.streamable_http_app(
            streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        try:
            async with self.server.session_manager.run():
                yield
        finally:
            self._app = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            # in a worker thread, as FastAPI runs it for every other route: an unknown key is a store
            # lookup, and a Redis-held bucket a round trip, neither of which may stall the event loop
            await asyncio.to_thread(require_key, Request(scope, receive))
        except ApiError as exc:  # answered as the API answers it: same envelope, same headers
            response = JSONResponse(error_body(exc.status_code, str(exc.detail), exc.code),
                                    status_code=exc.status_code, headers=exc.headers)
            await response(scope, receive, send)
            return
        if self._app is None:
            await JSONResponse(error_body(503, "the MCP endpoint is not running"), status_code=503)(
                scope, receive, send)
            return
        await self._app(scope, receive, send)
