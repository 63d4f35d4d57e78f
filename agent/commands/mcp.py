"""`trendlens mcp`: the MCP tools over stdio, for desktop agents (Claude Desktop, Cursor, …).

The agent starts this command and speaks JSON-RPC on its stdin/stdout, so nothing else may
ever write to stdout: logs go to stderr. The server answers `initialize` at once and loads the
model and the lists meanwhile; the first tool call waits for them. On a fresh data directory
that includes the first fetch (answers need lists); otherwise the lists are the store's and a
refresh runs in the background, then each source on the same schedule as `serve`.
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
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from agent.collect.scheduling import build_scheduler, schedule_index_follow

    from ..mcp import build_server
    from ..runtime import Runtime

    runtime = Runtime.build(settings)
    scheduler = (build_scheduler(runtime.collector, first_run_now=False, fetch=runtime.fetch_job) if fetch
                 else AsyncIOScheduler(timezone="UTC"))
    schedule_index_follow(scheduler, runtime.index.follow, settings.store.index_poll_s or 5.0)
    refresh: asyncio.Task[object] | None = None

    async def warm_up() -> None:
        # the agent waits for `initialize` with a timeout: answer it at once, load and fetch meanwhile
        nonlocal refresh
        await runtime.start()
        if fetch and not runtime.index.stored:
            log.info("no topics stored yet: the first tool call waits for the first fetch")
            await runtime.fetch_job.run()
        elif fetch:
            refresh = asyncio.create_task(runtime.fetch_job.run())
        scheduler.start()
        log.info("MCP over stdio: answering from %d topics", len(runtime.index.stored))

    warming = asyncio.create_task(warm_up())

    async def ready() -> Runtime:
        await asyncio.shield(warming)  # a cancelled tool call must not cancel the warm-up
        return runtime

    try:
        await build_server(ready).run_stdio_async()
    finally:
        for task in (warming, refresh):
            if task is not None and not task.done():
                task.cancel()
        if scheduler.running:
            scheduler.shutdown(wait=False)
        await runtime.aclose()
