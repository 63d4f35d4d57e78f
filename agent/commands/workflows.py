"""`trendlens workflows list|validate|run NAME|schema`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ..engine.spec import write_schema
from ..errors import ConfigError
from ..resources import workflows_dir
from ..settings import get_settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("workflows", help="list, validate or run workflows")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    v = verbs.add_parser("list", help="workflows with their triggers and steps")
    v.set_defaults(func=run_list)
    v = verbs.add_parser("validate", help="check workflow files; exit 1 if any is invalid")
    v.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the workflows folder)")
    v.set_defaults(func=run_validate)
    v = verbs.add_parser("run", help="run one workflow now (manual trigger)")
    v.add_argument("name")
    v.add_argument("--offline", action="store_true", help="replay the synthetic demo snapshot instead of the network")
    v.set_defaults(func=run_now)
    v = verbs.add_parser("schema", help="write the JSON Schema beside the workflow files")
    v.set_defaults(func=run_schema)


def _folder() -> Path:
    return get_settings().live.workflows_dir or workflows_dir()


def _load_all(paths: list[Path]) -> tuple[dict, dict]:
    from ..engine.spec import WorkflowError, load_workflow
    from ..engine.steps import STEPS

    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("*.y*ml")) if p.is_dir() else [p])
    ok, bad = {}, {}
    for f in files:
        try:
            ok[f] = load_workflow(f, steps=STEPS)
        except WorkflowError as exc:
            bad[f] = str(exc)
    return ok, bad


def _trigger_text(trigger) -> str:  # type: ignore[no-untyped-def]
    if isinstance(trigger, str):
        return trigger
    return ", ".join(f"{k}={v}" for k, v in trigger.model_dump().items())


def run_list(args: argparse.Namespace) -> int:
    ok, bad = _load_all([_folder()])
    table = Table(title=f"workflows in {_folder()}")
    for col in ("name", "trigger", "steps", "description"):
        table.add_column(col, overflow="fold")
    for spec in ok.values():
        table.add_row(spec.name, _trigger_text(spec.trigger), " → ".join(s.use for s in spec.steps), spec.description)
    Console().print(table)
    for message in bad.values():
        print(f"invalid: {message}", file=sys.stderr)
    return 0


def run_validate(args: argparse.Namespace) -> int:
    ok, bad = _load_all(args.paths or [_folder()])
    for path in ok:
        print(f"ok       {path}")
    for message in bad.values():
        print(f"invalid  {message}", file=sys.stderr)
    return 1 if bad else 0


def run_now(args: argparse.Namespace) -> int:
    from ..engine.values import DigestMade
    from ..runtime import Runtime

    settings = get_settings()
    if args.offline:
        settings = settings.model_copy(update={"offline": True})

    async def go() -> dict:
        runtime = Runtime.build(settings)
        try:
            spec = runtime.engine.get(args.name)
            event = getattr(spec.trigger, "event", None)
            if event:  # as the API answers: these start from an utterance, which a command line has not
                raise ConfigError(f"workflow {args.name!r} runs on '{event}' events, not on demand")
            # any workflow that ranks needs the model loaded and the index built; others only read the store
            if any(step.use == "rank" for step in spec.steps):
                await runtime.start()
            else:
                await runtime.index.refresh()
            record = await runtime.engine.run(args.name, trigger="manual")
            out = record.public()
            if isinstance(record.result, DigestMade):
                out["output"] = record.result.text[:2000]
            return out
        finally:
            await runtime.aclose()
            runtime.store.close()

    result = asyncio.run(go())
    json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
    print()
    return 0 if result["status"] != "error" else 1


def run_schema(args: argparse.Namespace) -> int:
    target = _folder() / "workflow.schema.json"
    from ..engine.steps import STEPS

    write_schema(target, STEPS)
    print(f"wrote {target}")
    return 0
