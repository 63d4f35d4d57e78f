"""The relevance figures every evaluation prints: recall@1, recall@3 and MRR.

A query scores by the rank of its first right topic (1-based); a query with none in the list
ranks at infinity, so it counts as a miss in every figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["recall", "recall_row"]


def recall(ranks: np.ndarray) -> dict[str, float]:
    """recall@1, recall@3 and MRR of each query's rank of its first right topic, and `n`."""
    return {"r@1": float((ranks <= 1).mean()), "r@3": float((ranks <= 3).mean()), "mrr": float((1 / ranks).mean()),
            "n": len(ranks)}


def recall_row(results: Sequence[Sequence[Any]], queries: Sequence[dict]) -> dict[str, float]:
    """`recall` of ranked lists (items with an `id`) against each query's `relevant` ids."""
    if not queries:
        return {"r@1": 0.0, "r@3": 0.0, "mrr": 0.0, "n": 0}
    ranks = []
    for ranked, q in zip(results, queries, strict=True):
        right = set(q["relevant"])
        ranks.append(next((k + 1 for k, r in enumerate(ranked) if r.id in right), math.inf))
    return recall(np.asarray(ranks, dtype=np.float64))
