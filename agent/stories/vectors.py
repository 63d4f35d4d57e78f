"""The vectors of held story items: one growable matrix with reusable rows.

Memory stays O(n·d): a dropped item frees its row for the next one, and the matrix doubles
only when every row is taken. Neighbours are found a (block × n) product at a time, so the
work is one matrix product per block, not a loop of dot products.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["VectorRows"]


@dataclass
class VectorRows:
    background: float = 0.0  # the embedder's cosine of unrelated texts (see ranker.CALIBRATION)
    _matrix: np.ndarray | None = None
    _ids: list[str | None] = field(default_factory=list)
    _free: list[int] = field(default_factory=list)
    _row: dict[str, int] = field(default_factory=dict)

    def __contains__(self, item_id: str) -> bool:
        return item_id in self._row

    def add(self, item_id: str, vector: np.ndarray) -> None:
        if self._matrix is None or self._matrix.shape[1] != vector.shape[0]:
            size = max(64, 2 * len(self._row) + 2)
            self._matrix = np.zeros((size, vector.shape[0]), dtype=np.float32)
            self._ids, self._free, self._row = [None] * size, list(range(size))[::-1], {}
        if not self._free:
            grow = len(self._matrix)
            self._matrix = np.vstack([self._matrix, np.zeros_like(self._matrix)])
            self._ids.extend([None] * grow)
            self._free.extend(range(2 * grow - 1, grow - 1, -1))
        row = self._free.pop()
        self._matrix[row] = vector
        self._ids[row] = item_id
        self._row[item_id] = row

    def drop(self, item_id: str) -> None:
        row = self._row.pop(item_id, None)
        if row is not None:
            self._ids[row] = None
            self._free.append(row)

    def cosine(self, a: str, b: str) -> float | None:
        """Calibrated similarity: 0 for unrelated texts of this model, 1 for the same text."""
        ra, rb = self._row.get(a), self._row.get(b)
        if ra is None or rb is None or self._matrix is None:
            return None
        raw = float(self._matrix[ra] @ self._matrix[rb])
        return (raw - self.background) / max(1.0 - self.background, 1e-6)

    def neighbours(self, fresh: Sequence[str], k: int, block: int = 256) -> dict[str, set[str]]:
        """The top-k held neighbours of each of `fresh`."""
        out: dict[str, set[str]] = defaultdict(set)
        rows = [(tid, self._row[tid]) for tid in fresh if tid in self._row]
        if self._matrix is None or not rows:
            return out
        k = min(k + 1, len(self._matrix))
        for start in range(0, len(rows), block):
            chunk = rows[start:start + block]
            sims = self._matrix[[r for _tid, r in chunk]] @ self._matrix.T
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            for (tid, _row), near in zip(chunk, top, strict=True):
                out[tid].update(o for o in (self._ids[int(r)] for r in near) if o is not None)
        return out
