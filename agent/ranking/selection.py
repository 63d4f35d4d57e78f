"""Selection: from per-topic scores to the few results worth showing.

One relevance gate (the profile's threshold for this language, index size and channel, on
the scores' gate evidence),
then the prior and novelty on top of relevance, then MMR so near-duplicate topics do not
crowd the top-k. Every `Ranked` carries its components, so a decision can be explained.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ..models import Topic
from .scoring import CalibrationProfile, Scores
from .snapshot import IndexSnapshot

__all__ = ["Ranked", "select"]


@dataclass(frozen=True)
class Ranked:
    id: str
    topic: Topic
    score: float
    components: Mapping[str, float]
    bridge: str | None = None  # the bridge from the other language that carried the match (bridges.py)

    def public(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "title": self.topic.title,
            "source": self.topic.source,
            "score": round(self.score, 4),
            "components": {k: round(v, 4) for k, v in self.components.items()},
        }
        if self.bridge:
            out["bridge"] = self.bridge
        return out


def _similarity(snapshot: IndexSnapshot, idx: np.ndarray, floor: float) -> np.ndarray:
    if snapshot.matrix.shape[1]:
        sub = snapshot.matrix[idx]
        # rescale cosines so that "near-duplicate" ≈ 1 and "unrelated" (the background) ≈ 0
        return np.clip((sub @ sub.T - floor) / max(1.0 - floor, 1e-6), 0.0, 1.0)
    sets = [snapshot.tokens[i] for i in idx.tolist()]
    sim = np.zeros((len(sets), len(sets)), dtype=np.float32)
    for a in range(len(sets)):
        for b in range(a, len(sets)):
            u = len(sets[a] | sets[b])
            sim[a, b] = sim[b, a] = (len(sets[a] & sets[b]) / u) if u else 0.0
    return sim


def _mmr(sim: np.ndarray, rel: np.ndarray, lam: float, top_k: int) -> tuple[list[int], dict[int, float]]:
    chosen: list[int] = []
    red: dict[int, float] = {}
    left = list(range(len(rel)))
    while left and len(chosen) < top_k:
        maxsim = sim[np.ix_(left, chosen)].max(axis=1) if chosen else np.zeros(len(left))
        j = int(np.argmax(lam * rel[left] - (1 - lam) * maxsim))
        pick = left.pop(j)
        red[pick] = float(maxsim[j])
        chosen.append(pick)
    return chosen + [p for p in range(len(rel)) if p not in set(chosen)], red


def select(snapshot: IndexSnapshot, profile: CalibrationProfile, scores: Scores, *, top_k: int,
           gate: bool = False, gate_offset: float = 0.0, prior: bool = False, exclude: AbstractSet[str] | None = None,
           mmr: bool = False, allowed: np.ndarray | None = None) -> list[Ranked]:
    """The top-k results. `allowed` (bool per topic) narrows the candidates further."""
    n = len(snapshot)
    if not n or top_k <= 0:
        return []
    rel = scores.relevance
    total = rel.copy()
    prior_part = profile.prior * snapshot.prior if prior else np.zeros(n, dtype=np.float32)
    total += prior_part
    novelty = np.zeros(n, dtype=np.float32)
    if exclude:
        hit = [j for j in (snapshot.pos.get(k) for k in exclude) if j is not None]
        novelty[hit] = -profile.novelty_penalty
        total += novelty
    ok = np.ones(n, dtype=bool) if allowed is None else allowed.copy()
    if gate:
        ok &= scores.gate_evidence >= profile.gate_threshold(scores.lang, n, scores.channel) + gate_offset
        if exclude:
            ok &= novelty == 0
    pool_size = min(n, max(top_k * 4, 40) if mmr else top_k, int(ok.sum()))
    if pool_size <= 0:
        return []
    if not ok.all():
        total = np.where(ok, total, -np.inf)
    cand = np.argpartition(-total, pool_size - 1)[:pool_size] if pool_size < n else np.arange(n)
    cand = cand[np.lexsort((cand, -total[cand]))]  # score desc, then index for determinism
    redundancy: dict[int, float] = {}
    if mmr and len(cand) > 1:
        order, red = _mmr(_similarity(snapshot, cand, profile.background_floor()), total[cand],
                          profile.mmr_lambda, top_k)
        redundancy = {int(cand[p]): v for p, v in red.items()}
        cand = cand[order]
    out: list[Ranked] = []
    for i in cand[:top_k].tolist():
        e = snapshot.entries[i]
        comps = {"dense": float(scores.dense[i]), "lexical": float(scores.lexical[i]), "relevance": float(rel[i]),
                 "prior": float(prior_part[i]), "novelty": float(novelty[i])}
        if mmr:
            comps["redundancy"] = redundancy.get(i, 0.0)
        out.append(Ranked(e.key, e.topic, float(total[i]), MappingProxyType(comps)))
    return out
