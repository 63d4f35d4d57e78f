"""`trendlens mcp`: the MCP tools over stdio, for desktop agents (Claude Desktop, Cursor, …).

The agent starts this command and speaks JSON-RPC on its stdin/stdout, so nothing else may
ever write to stdout: logs go to stderr. On a fresh data directory the first fetch finishes
before the first question is read (answers need lists); otherwise the server answers at once
from the store and refreshes in the background, on the same per-source schedule as `serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from ..settings import Settings, get_settings

log = logging.getLogger("trendlens.mcp")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the MCP tools over stdio (for Claude Desktop, Cursor and other agents)")
    p.add_argument("--offline", action="store_true", help="replay the synthetic demo snapshot instead of live sources")
    p.add_argument("--no-fetch", action="store_true",
                   help="fetch nothing: answer from the store, following what another process (a `trendlens "
                        "serve` on the same data directory, or a shared database) writes there")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.offline:
        settings = settings.model_copy(update={"offline": True})
    asyncio.run(serve_stdio(settings, fetch=not args.no_fetch))
    return 0


async def serve_stdio(settings: Settings, *, fetch: bool = True) -> None:
    from ..mcp import build_server
    from ..runtime import Runtime
    from ..scheduling import build_scheduler, schedule_index_follow

    runtime = Runtime.build(settings)
    await runtime.start()
    scheduler = build_scheduler(runtime.collector, first_run_now=False, fetch=runtime.fetch_job) if fetch else None
    if scheduler is None:
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        scheduler = AsyncIOScheduler(timezone="UTC")
    schedule_index_follow(scheduler, runtime.index.follow, settings.index_poll_s or 5.0)
    background: asyncio.Task[object] | None = None
    try:
        if fetch and not runtime.stored:
            log.info("no topics stored yet: fetching once before answering")
            await runtime.fetch_job.run()
        elif fetch:
            background = asyncio.create_task(runtime.fetch_job.run())
        scheduler.start()
        log.info("MCP over stdio: %d topics", len(runtime.stored))
        await build_server(lambda: runtime).run_stdio_async()
    finally:
        if background is not None and not background.done():
            background.cancel()
        scheduler.shutdown(wait=False)
        await runtime.aclose()
