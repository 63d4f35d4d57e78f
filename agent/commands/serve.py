"""`trendlens serve`: the service (API, HUD, live captions, scheduled fetching and digests)."""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..settings import get_settings
from ..store import store_location
from .ports import port_is_free

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("trendlens")

# What one slow or bulky client may hold of the server. uvicorn's keep-alive timeout runs only
# between requests, and it has no deadline on a request's headers: a client sending them a byte at
# a time (slowloris) would hold its connection for ever.
HEADER_TIMEOUT_S = 10.0  # a request line and headers arrive whole within this, or the connection closes
KEEP_ALIVE_S = 5  # an idle keep-alive connection closes after this
MAX_HEADER_BYTES = 16 * 1024  # request line and headers together (h11's incomplete event limit); past it: 400


def header_deadline_protocol(header_timeout_s: float = HEADER_TIMEOUT_S) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline on each request's line and headers, from the
    connection's start or the first byte of the next request on a kept-alive one. (Made on demand:
    every other command would pay for importing uvicorn.)"""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state is h11.IDLE:
                self._arm()  # the next request on a kept-alive connection begins
            super().data_received(data)
            if self._deadline is not None and self.conn.their_state is not h11.IDLE:
                self._deadline.cancel()  # its headers are in (or it became a WebSocket)
                self._deadline = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(header_timeout_s, self._too_slow)

        def _too_slow(self) -> None:
            self._deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeaderDeadline


def server_config(app: Any, host: str, port: int, *, header_timeout_s: float = HEADER_TIMEOUT_S,
                  **extra: Any) -> uvicorn.Config:
    """How `serve` runs the app under uvicorn: the limits above and the stream socket's frame cap."""
    import uvicorn

    from ..api.throttle import MAX_FRAME_BYTES

    protocol = header_deadline_protocol(header_timeout_s)
    # websockets-sansio: the implementation on the current websockets API (the default one is deprecated)
    options: dict[str, Any] = {"log_level": "info", "access_log": False, **extra}
    return uvicorn.Config(app, host=host, port=port, http=protocol, ws="websockets-sansio", ws_max_size=MAX_FRAME_BYTES,
                          timeout_keep_alive=KEEP_ALIVE_S, h11_max_incomplete_event_size=MAX_HEADER_BYTES, **options)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the service: API, HUD pages, live captions, schedules")
    p.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000)")
    p.add_argument("--offline", action="store_true", help="replay the synthetic demo snapshot instead of live sources")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from agent.collect.collector import SYNTHETIC

    from ..api import create_app

    settings = get_settings()
    updates: dict[str, object] = {"offline": True} if args.offline else {}
    if args.host:
        updates["host"] = args.host
    if args.port:
        updates["port"] = args.port
    settings = settings.model_copy(update=updates)
    listen = settings.server
    if not port_is_free(listen.host, listen.port):
        raise ConfigError(f"port {listen.port} on {listen.host} is in use (is trendlens already running?); "
                          "choose another with --port")
    log.info("store: %s; sources: %s", store_location(settings),
             f"the {SYNTHETIC} (--offline; made-up hot lists, not live data)" if settings.fetch.offline
             else f"live, falling back to the {SYNTHETIC} while the network is unreachable")
    app = create_app(settings)
    config = server_config(app, listen.host, listen.port)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # A re-index can run for minutes in a worker thread, and the process cannot exit before
            # it ends: abandon it now. What the store committed is indexed again at the next start.
            runtime = getattr(app.state, "runtime", None)  # there once the app has started
            ranker = runtime.index.ranker if runtime is not None else None
            if ranker is not None:
                ranker.cancel.set()
            super().handle_exit(sig, frame)

    server = Server(config)
    server.run()
    return 0 if server.started else 1
