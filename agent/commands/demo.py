"""`trendlens demo`: a New Year's Eve dinner (and an English one) replayed through the live loop, offline.

A synthetic demo snapshot (hot lists we wrote) stands in for the platforms, a scripted conversation for the
glasses' speech-to-text. Each utterance is printed with the caption the wearer
would see — or why the glasses stayed quiet — while the HUD page is served so a
browser can watch along.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import time
from pathlib import Path
from statistics import median
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from ..captions.caption import Caption
from ..errors import InputError
from ..platforms import caption_label
from ..resources import conversations_dir
from ..settings import get_settings
from .ports import free_port, port_is_free

SCRIPTS = {"zh": "spring_festival_dinner.jsonl", "en": "english_dinner.jsonl"}  # in the package's synthetic data
QUIET = {
    "not_enough_speech": "waiting for more speech", "no_candidate": "nothing trending matches",
    "below_threshold": "nothing relevant enough", "display_locked": "a caption is still on screen",
    "cooldown": "cooling down between captions", "duplicate": "already shown",
}


def _where(sources: str, most: int = 3) -> str:
    """The box's heading in the platforms' own labels, as the caption writes them ("百度 · 知乎 +2"),
    never the raw source ids that overflow the box."""
    ids = [s for s in sources.split("+") if s]
    shown = " · ".join(caption_label(s) for s in ids[:most])
    return shown + (f" +{len(ids) - most}" if len(ids) > most else "")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="offline demo: a family dinner replayed through the live caption loop")
    p.add_argument("--lang", choices=["zh", "en", "both"], default="both")
    p.add_argument("--speed", type=float, default=3.0, help="replay speed (1 = real time; 0 = no pauses)")
    p.add_argument("--profile", default="even-g1", help="display profile of the demo glasses")
    p.add_argument("--port", type=int, default=8000,
                   help="HUD page port on 127.0.0.1; a free one when it is taken (0 = don't serve)")
    p.add_argument("--script", type=Path, help="your own conversation (.jsonl of {t, speaker, text})")
    p.set_defaults(func=run)


def load_script(path: Path) -> list[dict]:
    lines = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
            lines.append({"t": float(item["t"]), "speaker": str(item.get("speaker", "")), "text": str(item["text"])})
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise InputError(f"{path}:{n}: expected {{\"t\": seconds, \"speaker\": ..., \"text\": ...}}") from None
    return lines


def _show(console: Console, captions: list[Caption], note: str) -> int:
    for caption in captions:
        console.print(Panel("\n".join(caption.lines), title=f"👓 {_where(caption.source)}",
                            subtitle=f"score {caption.score:.2f} · {note}", expand=False,
                            border_style="green", style="bold green"), justify="left")
    return len(captions)


def run(args: argparse.Namespace) -> int:
    langs = ["zh", "en"] if args.lang == "both" else [args.lang]
    scripts = [args.script] if args.script else [conversations_dir() / SCRIPTS[k] for k in langs]
    conversations = [(p, load_script(p)) for p in scripts]
    return asyncio.run(_demo(args, conversations))


async def _demo(args: argparse.Namespace, conversations: list[tuple[Path, list[dict]]]) -> int:
    from ..runtime import Runtime

    console = Console()
    base = get_settings()
    data_dir = base.store.data_dir / "demo"
    # a fresh store each run (the embedding cache beside it is kept: titles are embedded once)
    for stale in data_dir.glob("trendlens.sqlite3*"):
        stale.unlink()
    settings = base.model_copy(update={"offline": True, "data_dir": data_dir, "displays": []})
    logging.getLogger("trendlens").setLevel(logging.WARNING)
    with console.status("loading the synthetic demo snapshot and the embedding model…"):
        runtime = Runtime.build(settings)
        await runtime.collector.cycle()
        await runtime.start()
    ok = len(runtime.index.stored)
    platforms = len({t.topic.source for t in runtime.index.stored.values()})
    console.print(f"[bold green]热梗透视镜 TrendLens demo[/] — {ok} trending topics from {platforms} platforms "
                  "(synthetic demo snapshot: hot lists we wrote, offline); "
                  f"model: {runtime.index.model_name or 'lexical only'}")
    serving = await _serve(runtime, args.port, console) if args.port else None
    port = serving[0].config.port if serving is not None else None
    latencies: list[float] = []
    shown = 0
    try:
        for path, lines in conversations:
            session, token = runtime.sessions.create(args.profile)
            title = path.stem.replace("_", " ")
            console.rule(f"[bold]{title}[/]  ·  glasses: {args.profile}")
            if port:
                # soft_wrap: a URL broken over two lines cannot be clicked or copied
                console.print(f"HUD: http://127.0.0.1:{port}/hud/{session.id}#token={token}", soft_wrap=True)
            start = time.time()
            previous_t = 0.0
            for line, after in zip(lines, [*lines[1:], None], strict=True):
                if args.speed > 0:
                    await asyncio.sleep(max(0.0, line["t"] - previous_t) / args.speed)
                previous_t = line["t"]
                t0 = time.perf_counter()
                result = await runtime.handle_utterance(session, line["text"], now=start + line["t"])
                ms = (time.perf_counter() - t0) * 1000
                latencies.append(ms)
                stamp = f"{int(line['t']) // 60:02d}:{int(line['t']) % 60:02d}"
                console.print(Text.assemble((f" {stamp} ", "dim"), (f"{line['speaker']}: ", "bold cyan"), line["text"]))
                if result.captions:
                    shown += _show(console, result.captions, f"{ms:.0f} ms")
                else:
                    reason = result.decision.reason if result.decision is not None else ""
                    why = QUIET.get(reason, reason)
                    console.print(f"        [dim]· quiet — {why}[/] [dim italic]({ms:.0f} ms)[/]")
                # the meme held back while the wearer read the caption before it, up once that one is read
                late = await runtime.release_held(session, before=start + after["t"] if after else float("inf"))
                shown += _show(console, late.captions, "held back, then read")
        console.rule()
        console.print(f"{len(latencies)} utterances, {shown} captions shown, decision latency median "
                      f"{median(latencies):.0f} ms, max {max(latencies):.0f} ms")
    finally:
        if serving is not None:
            server, task = serving
            server.should_exit = True  # a graceful stop: cancelling would break uvicorn's lifespan
            await asyncio.wait_for(task, 10)
        await runtime.aclose()
        runtime.store.close()
    return 0


async def _serve(runtime, port: int, console: Console):  # type: ignore[no-untyped-def]
    import uvicorn

    from ..api import create_app
    from ..api.throttle import MAX_FRAME_BYTES

    if not port_is_free("127.0.0.1", port):
        taken, port = port, free_port()  # e.g. `make run` holds 8000: the demo still gets its page
        console.print(f"[yellow]port {taken} is in use; serving the HUD page on port {port} instead[/]",
                      soft_wrap=True)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False, start_runtime=False)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", ws="websockets-sansio",
                                                   ws_max_size=MAX_FRAME_BYTES))
    task = asyncio.create_task(_quiet(server.serve()))
    for _ in range(100):
        if server.started or task.done():
            break
        await asyncio.sleep(0.05)
    if task.done():
        console.print(f"[yellow]HUD page not served: port {port} could not be opened (use --port)[/]")
        return None
    console.print(f"[bold]serving on http://127.0.0.1:{port}[/] (a HUD page per conversation below; API docs at /docs)",
                  soft_wrap=True)
    return server, task


async def _quiet(serving: Any) -> None:
    # uvicorn exits the process when it cannot bind: here that only means no HUD page
    with contextlib.suppress(SystemExit):
        await serving
