"""`trendlens fetch`, `trendlens sources`, `trendlens topics`, `trendlens run`."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys

from rich.console import Console
from rich.table import Table

from agent.answers.queries.sources import statuses_of
from agent.collect.collector import Collector

from ..settings import Settings, get_settings
from ..sources import REGISTRY, build_sources, source_class
from ..store import open_store, store_location

log = logging.getLogger("trendlens")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fetch", help="run one fetch cycle and show what each source yielded")
    p.add_argument("--source", action="append", dest="sources", metavar="NAME", help="only this source (repeatable)")
    p.add_argument("--offline", action="store_true", help="replay the synthetic demo snapshot instead of the network")
    p.set_defaults(func=run_fetch)

    p = sub.add_parser("sources", help="list sources with their health")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_sources)

    p = sub.add_parser("topics", help="current topics from the store, hottest first")
    p.add_argument("--source")
    p.add_argument("--lang", choices=["zh", "en", "ja", "other"])
    p.add_argument("--limit", type=int, default=30)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_topics)

    p = sub.add_parser("run", help="fetch every source on its own schedule until stopped")
    p.add_argument("--offline", action="store_true", help="replay the synthetic demo snapshot instead of the network")
    p.set_defaults(func=run_forever)


def _settings(args: argparse.Namespace) -> Settings:
    settings = get_settings()
    if getattr(args, "offline", False):
        settings = settings.model_copy(update={"offline": True})
    return settings


def run_fetch(args: argparse.Namespace) -> int:
    settings = _settings(args)
    for name in args.sources or []:
        source_class(name)  # unknown names fail before any work
    store = open_store(settings)
    collector = Collector(settings, store, build_sources(settings, args.sources))
    console = Console(stderr=True)

    async def go():
        try:
            with console.status(f"fetching {len(collector.sources)} sources…"):
                return await collector.cycle()
        finally:
            await collector.aclose()

    outcomes = asyncio.run(go())
    table = Table(title="fetch cycle" + (" (replayed: synthetic demo snapshot)" if collector.replaying else ""))
    for col in ("source", "status", "items", "time", "detail"):
        table.add_column(col, overflow="fold")
    for o in outcomes:
        status = "[green]ok[/]" if o.ok else f"[red]{o.status}[/]"
        detail = "" if o.ok else (o.error.message if o.error else "")
        table.add_row(o.source, status, str(len(o.topics)), f"{o.elapsed_s:.2f}s", detail)
    Console().print(table)
    store.close()
    return 0 if any(o.ok for o in outcomes) else 1


def run_sources(args: argparse.Namespace) -> int:
    settings = get_settings()
    store = open_store(settings)
    rows = [s.public() for s in statuses_of(build_sources(settings, list(REGISTRY)), store.health(),
                                              replaying=settings.fetch.offline)]
    store.close()
    if args.json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    table = Table(title="sources")
    for col in ("name", "title", "every", "status", "items", "last success", "failures", "last error"):
        table.add_column(col, overflow="fold")
    for r in rows:
        status = r["status"] if r["enabled"] else f"disabled: {r['disabled_reason']}"
        table.add_row(r["name"], r["title"], f"{r['interval_s']}s", status, str(r["last_count"]),
                      (r["last_success"] or "")[:19], str(r["consecutive_failures"]), r["last_error"] or "")
    Console().print(table)
    return 0


def run_topics(args: argparse.Namespace) -> int:
    settings = get_settings()
    if args.source:
        source_class(args.source)
    store = open_store(settings)
    topics = store.current(source=args.source, lang=args.lang, limit=max(1, args.limit))
    store.close()
    if args.json:
        json.dump([t.public() for t in topics], sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    table = Table(title=f"{len(topics)} topics")
    for col in ("source", "rank", "title", "heat", "trend"):
        table.add_column(col, overflow="fold")
    marks = {"new": "🆕", "rising": "↑", "falling": "↓", "steady": "·"}
    for t in topics:
        table.add_row(t.topic.source, str(t.topic.rank or ""), t.topic.title,
                      t.topic.heat_text or ("" if t.topic.heat is None else f"{t.topic.heat:g}"), marks[t.trend])
    Console().print(table)
    return 0


def run_forever(args: argparse.Namespace) -> int:
    from agent.collect.scheduling import build_scheduler

    settings = _settings(args)
    store = open_store(settings)
    log.info("store: %s", store_location(settings))

    async def go() -> None:
        collector = Collector(settings, store)
        scheduler = build_scheduler(collector)
        scheduler.start()
        log.info("fetching %d sources on their schedules%s; Ctrl-C stops", len(collector.sources),
                 " from the synthetic demo snapshot" if collector.replaying else "")
        try:
            await asyncio.Event().wait()
        finally:
            scheduler.shutdown(wait=False)
            await collector.aclose()

    try:
        asyncio.run(go())
    finally:
        store.close()
    return 0
