#!/usr/bin/env python
"""What caps the Chinese right captions: the ranker's top-1 against what the gate lets through.

On the relevance set's Chinese index (../shared/devsets/relevance.json), each mention of a half and each
small-talk line of the same half of chitchat.json (real) is scored as the live gate scores a one-line
session; the top result's gate evidence, and the per-query dense z beside it, are read. For each mix of
the two (`w_query`: the per-query z's share) the bar letting 2 % / 3 % of the small talk through is
found on that very half (an upper bound: the shipped bar is fitted elsewhere), and the share of the
mentions whose top-1 is right and clears it is printed. recall@1 is the ceiling of every row.

    .venv/bin/python scripts/eval/gate_ceiling.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from agent.index.story_rank import StoryRanking
from agent.ranking import EmbeddingCache, Ranker, RankQuery, build_embedder
from agent.ranking.encoder import combine
from agent.ranking.scoring import score
from agent.settings import get_settings
from harness import devsets
from harness.devsets import pick
from harness.recall import recall_row

MIXES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
RATES = (0.02, 0.03)


def top_features(ranker: Ranker, texts: list[str]) -> list[tuple[str, float, float]]:
    """(top topic's key, its per-query dense z, its gate evidence) of each text as a one-line session."""
    snapshot, profile = ranker.snapshot, ranker.profile
    assert ranker.encoder is not None, "the gate's evidence needs the model"
    vectors = ranker.encoder.vectors_sync(texts)
    out = []
    for text in texts:
        parts = [(text, 1.0)]
        s = score(snapshot, profile, combine(parts, vectors), parts)
        i = int(np.argmax(s.relevance))
        out.append((snapshot.entries[i].key, float(s.dense[i]), float(s.gate_evidence[i])))
    return out


def right_past(ranker: Ranker, mentions: list[dict], small: list[str]) -> dict[tuple[float, float], float]:
    """Per (mix, small-talk rate): the share of mentions whose top-1 is right and clears the bar."""
    said = top_features(ranker, [q["text"] for q in mentions])
    chat = np.array([f[1:] for f in top_features(ranker, small)])
    right = np.array([key in q["relevant"] for (key, _, _), q in zip(said, mentions, strict=True)])
    heard = np.array([f[1:] for f in said])
    out = {}
    for w in MIXES:
        bar_of = np.quantile((1 - w) * chat[:, 1] + w * chat[:, 0], [1 - r for r in RATES])
        mixed = (1 - w) * heard[:, 1] + w * heard[:, 0]
        for rate, bar in zip(RATES, bar_of, strict=True):
            out[w, rate] = float(np.mean((mixed > bar) & right))
    return out


def main() -> int:
    settings = get_settings()
    embedder, cache = build_embedder(settings, None), EmbeddingCache.for_settings(settings)
    rel, chat = devsets.load()
    ranker = Ranker(embedder, devsets.entries(rel["zh"]["topics"], Path(tempfile.mkdtemp())), cache=cache)
    ranking = StoryRanking.grouped(ranker)  # recall@1 as the live loop ranks
    print("| half | recall@1 | " + " | ".join(f"w_query {w}: 2 % / 3 %" for w in MIXES) + " |")
    print("|---|---|" + "---|" * len(MIXES))
    for half in ("report", "tune"):
        mentions = pick(rel["zh"]["queries"], half, None)
        # by relevance alone (no heat prior, no diversity), as `top_features` picks its top-1
        top1 = [RankQuery(text=q["text"], top_k=1, prior=False, mmr=False) for q in mentions]
        top = recall_row(ranking.rank_queries_sync(top1), mentions)["r@1"]
        got = right_past(ranker, mentions, pick(chat["zh"], half))
        cells = " | ".join(f"{got[w, 0.02]:.3f} / {got[w, 0.03]:.3f}" for w in MIXES)
        print(f"| {half} | {top:.3f} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
