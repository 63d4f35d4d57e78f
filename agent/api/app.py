"""The FastAPI application: one app for the glasses, chat clients and the digest."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from agent.collect.scheduling import build_scheduler, schedule_index_follow
from agent.index.topic_index import SCHEDULED_DEBOUNCE_S
from agent.live.sessions import SessionManager
from agent.store.keys import list_keys

from ..engine.triggers import schedule_workflows
from ..runtime import Runtime
from ..settings import Settings, get_settings
from .deps import erasure_guard, live_sessions
from .docs import install_docs
from .errors import install_error_handlers
from .limits import BodySizeLimit
from .mcp import McpEndpoint
from .redis_limiter import RedisRateLimiter
from .routes import chat, digest, health, hud, lingzhu, sessions, topics, watch, workflows
from .security import KeyRing, RateLimiter
from .throttle import KeyLimiter

__all__ = ["create_app"]

log = logging.getLogger("trendlens.api")


def _limiter(settings: Settings, rate: float, burst: int) -> RateLimiter | RedisRateLimiter:
    """Token buckets in Redis when instances share one, else in process."""
    if settings.store.redis_url is not None:
        return RedisRateLimiter(settings.store.redis_url.get_secret_value(), rate, burst)
    return RateLimiter(rate, burst)


def create_app(settings: Settings | None = None, *, runtime: Runtime | None = None, schedule: bool = True,
               announce_key: bool = True, start_runtime: bool = True) -> FastAPI:
    """Build the app. Tests pass their own settings/runtime and `schedule=False`; a caller that
    already started its runtime (the demo) passes `start_runtime=False` and closes it itself."""
    settings = settings or get_settings()
    server = settings.server

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        rt = runtime or Runtime.build(settings)
        app.state.runtime = rt
        secret = settings.store.utterance_secret()
        if secret is not None and isinstance(rt.sessions, SessionManager):
            # the keyed hash's key from the settings (or a mounted file), not from the store it protects
            await asyncio.to_thread(rt.sessions.use_secret, secret)
        if rt.mentra is not None:
            # POST /webhook (the Public URL's path), /api/_mentraos/webhook and /mentra/webhook
            app.include_router(rt.mentra.router)
        keys = KeyRing(settings, rt.store)
        if keys.empty:  # a truly first start: the store never held a key
            key = keys.create("serve", role="admin")  # the operator's own: it may ingest and run workflows
            if announce_key:
                # shown once; only its hash is kept
                print(f"\n  TrendLens API key (shown once, stored hashed): {key}\n", flush=True)
        elif not server.api_keys and not server.admin_keys and not list_keys(rt.store):
            log.warning("every stored API key is revoked: requests are refused until one is made "
                        "(`trendlens keys create`)")
        app.state.keys = keys
        app.state.limiter = KeyLimiter(_limiter(settings, server.rate_limit_per_s, server.rate_limit_burst),
                                       live_sessions(app), server.session_rate_limit_per_s,
                                       server.session_rate_limit_burst)
        app.state.session_limiter = _limiter(settings, server.session_rate_limit_per_s, server.session_rate_limit_burst)
        erasure_guard(app)  # before any socket opens: every erasure reaches this instance's guard
        if start_runtime:
            await rt.start()
        scheduler = None
        first_fetch = None
        if schedule:
            rt.index.debounce_s = SCHEDULED_DEBOUNCE_S  # a burst of fetch jobs costs one rebuild
            scheduler = build_scheduler(rt.collector, first_run_now=False, fetch=rt.fetch_job)
            schedule_workflows(scheduler, rt.engine, rt.fetch_job.locks)
            schedule_index_follow(scheduler, rt.index.follow, settings.store.index_poll_s)
            scheduler.start()
            # first snapshot now, in the background, through the scheduler's own fetch job:
            # the API answers while sources load
            first_fetch = asyncio.create_task(rt.fetch_job.run())
        stalls = asyncio.create_task(rt.metrics.loop_stalls.watch(), name="loop-stalls")  # /metrics: the loop's lag
        try:
            async with mcp.running():
                yield
        finally:
            stalls.cancel()
            if first_fetch is not None and not first_fetch.done():
                first_fetch.cancel()
            if scheduler is not None:
                scheduler.shutdown(wait=False)
            for limiter in (getattr(app.state.limiter, "base", None), app.state.session_limiter):
                if isinstance(limiter, RedisRateLimiter):
                    limiter.close()
            if start_runtime:
                await rt.aclose()

    mcp = McpEndpoint(lambda: app.state.runtime)  # /mcp: the MCP tools, behind the same API key
    app = FastAPI(title="TrendLens 热梗透视镜", version="0.1.0", lifespan=lifespan,
                  description="Trending topics matched to the live conversation, captioned for smart glasses.",
                  docs_url=None, redoc_url=None)  # served offline by install_docs
    install_docs(app)
    install_error_handlers(app)
    if server.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=server.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(BodySizeLimit, max_bytes=server.max_request_bytes)
    app.state.metrics_token = server.metrics_token  # /metrics: this token or an admin key
    for module in (topics, sessions, workflows, chat, lingzhu, digest, hud, health, watch):
        app.include_router(module.router)
    app.router.routes.append(mcp.route)
    return app
