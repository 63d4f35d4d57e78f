"""The query encoder: query vectors from the model, cached per utterance, micro-batched, shed under load.

A conversation window is embedded utterance by utterance and combined with its recency
weights: each utterance is encoded once (then cached), so a new utterance costs one short
encode however long the conversation grows, and every later look at the same words
(the window, the newest utterance alone, a chat question asked twice) reuses the vector.
When the newest utterance's encode, queued behind other lines, would finish past its deadline
(the model's measured cost per text times the texts ahead of it and itself, shared by the
engines that encode at once), it is not encoded at all and the query is answered by BM25 (load
shedding): an answer now beats a late one. A line that would make its deadline waits for the
model however long the queue, and a line that finds an engine idle is always encoded. Only
final transcripts are ranked (partials never reach here), and only a window's newest line is
ever encoded, so under load the model spends itself on the line the wearer just heard.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ..metrics import timed
from .batching import MicroBatcher
from .cache import EmbeddingCache
from .embedders import Embedder

__all__ = ["LATE_FACTOR", "QueryEncoder", "combine"]

LATE_FACTOR = 1.5  # the longest wait for a vector, in deadlines: the deadline is an estimate, this a bound


def combine(parts: Sequence[tuple[str, float]], vectors: dict[str, np.ndarray]) -> np.ndarray | None:
    """Recency-weighted unit mean of the parts that have a vector (None when none has)."""
    have = [(vectors[t], w) for t, w in parts if t in vectors]
    if not have:
        return None
    if len(have) == 1:
        return have[0][0]
    combined = np.sum([w * v for v, w in have], axis=0).astype(np.float32)
    norm = float(np.linalg.norm(combined))
    return combined / norm if norm > 0 else combined


class QueryEncoder:
    def __init__(self, embedder: Embedder, *, batcher: MicroBatcher | None = None,
                 deadline_s: float | None = None, max_cached: int = 4096,
                 persistent: EmbeddingCache | None = None) -> None:
        self.embedder = embedder
        # batch callers (the CLI, evaluations) also read and fill the on-disk cache, under
        # "<model>#query" since e5 encodes a query differently from a passage of the same text
        self.persistent = persistent
        self.batcher = batcher
        # an encode expected to finish later than this is not made; BM25 answers (None = never shed)
        self.deadline_s = deadline_s
        self.max_cached = max_cached
        self.shed = 0
        self.encodes = 0
        # calls answered from the cache alone: a load test that repeats its lines reads its capacity
        # off this, since a cached line costs no encode
        self.cache_hits = 0
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()  # the CLI and scripts encode from worker threads

    @property
    def dim(self) -> int:
        return int(self.embedder.dim)

    def overloaded(self) -> bool:
        # a line that finds an engine idle is encoded however long it is: BM25 would trade its
        # quality for no load relief, and one-at-a-time quality is the bar
        return (self.deadline_s is not None and self.batcher is not None and not self.batcher.starts_now
                and self.batcher.expected_finish_s(1) > self.deadline_s)

    def _lookup(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        with self._lock:
            found = {}
            for t in texts:
                v = self._cache.get(t)
                if v is not None:
                    self._cache.move_to_end(t)
                    found[t] = v
            return found

    def _store(self, texts: Sequence[str], vecs: np.ndarray) -> None:
        with self._lock:
            for t, v in zip(texts, vecs, strict=True):
                self._cache[t] = v
                self._cache.move_to_end(t)
            while len(self._cache) > self.max_cached:  # least recently used go first
                self._cache.popitem(last=False)

    async def vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Vectors for `texts` (oldest first), encoding at most the newest missing one.

        Older holes (left by load shedding) stay holes, so one call never turns into eight
        encodes; BM25 still reads those words. Empty when the newest text was shed.
        """
        found = self._lookup(texts)
        missing = [t for t in texts if t not in found]
        if not missing:
            self.cache_hits += 1
        else:
            if self.overloaded():
                self.shed += 1
                return found
            newest = missing[-1]
            with timed("encode"):  # the decision's stage: its wait for an engine included
                if self.batcher is not None:
                    # a line that finds an engine idle is encoded however long it takes (`overloaded`); one
                    # let queue by the estimate, which reads an engine's cost on a quiet host, may still
                    # come late under load, and the wearer waits for the slowest line: its wait is bounded
                    bound = None  # no deadline (None), or an idle engine: waited for however long
                    if self.deadline_s is not None and not self.batcher.starts_now:
                        bound = LATE_FACTOR * self.deadline_s
                    try:
                        async with asyncio.timeout(bound):
                            vec = (await self.batcher.encode([newest], role="query"))[0]
                    except TimeoutError:  # its queued request is dropped from the queue (`_take_batch`)
                        self.shed += 1
                        return found
                else:
                    vec = (await asyncio.to_thread(self.embedder.encode, [newest], role="query"))[0]
            self.encodes += 1
            self._store([newest], np.asarray([vec]))
            found[newest] = vec
        return found

    def vectors_sync(self, texts: Sequence[str], *, batch: int = 32) -> dict[str, np.ndarray]:
        """Blocking, for the CLI and scripts: every missing text is encoded, in batches."""
        found = self._lookup(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        name = f"{self.embedder.name}#query"
        if missing and self.persistent is not None:
            mat, hit = self.persistent.get_many(name, missing, self.dim)
            stored = [t for t, h in zip(missing, hit, strict=True) if h]
            if stored:
                self._store(stored, mat[hit])
                found.update(zip(stored, mat[hit], strict=True))
            missing = [t for t, h in zip(missing, hit, strict=True) if not h]
        for s in range(0, len(missing), batch):
            chunk = missing[s : s + batch]
            vecs = np.asarray(self.embedder.encode(chunk, role="query"), dtype=np.float32)
            self.encodes += len(chunk)
            self._store(chunk, vecs)
            if self.persistent is not None:
                self.persistent.put_many(name, chunk, vecs)
            found.update(zip(chunk, vecs, strict=True))
        return found
