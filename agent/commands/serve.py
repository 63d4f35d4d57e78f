"""`trendlens serve`: the service (API, HUD, live captions, scheduled fetching and digests)."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from ..errors import ConfigError
from ..settings import get_settings
from ..store import store_location
from .ports import port_is_free

log = logging.getLogger("trendlens")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the service: API, HUD pages, live captions, schedules")
    p.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000)")
    p.add_argument("--offline", action="store_true", help="replay the synthetic demo snapshot instead of live sources")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from ..api import create_app
    from ..api.throttle import MAX_FRAME_BYTES
    from ..collect import SYNTHETIC

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
    # websockets-sansio: the implementation on the current websockets API (the default one is deprecated)
    config = uvicorn.Config(app, host=listen.host, port=listen.port, log_level="info", access_log=False,
                            ws="websockets-sansio", ws_max_size=MAX_FRAME_BYTES)

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
