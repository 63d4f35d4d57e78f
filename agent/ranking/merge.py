"""Cross-platform merge: one story on Weibo, Douyin and Baidu becomes one cluster.

Two topics join when their titles are near-duplicates: high lexical overlap of CJK
bigrams / words (overlap coefficient), or a high embedding cosine, or a moderately
high cosine backed by some lexical overlap. Groups grow strongest link first, and
only while every member stays related to every other and each platform list
contributes at most one item (one story is one entry per hot list).

Cluster ids are stable across fetch cycles: pass the previous cycle's
`member id → cluster id` map (`assignments(clusters)`) and a cluster keeps the id
that most of its members had; a brand-new cluster gets `c-` + a hash of its
smallest member id, which does not depend on list order or fetch time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..models import Topic, stable_id
from .embedders import Embedder
from .lexical import tokenize

__all__ = ["Cluster", "assignments", "cluster_topics"]


@dataclass(frozen=True)
class Cluster:
    id: str
    members: tuple[Topic, ...]
    heat: float  # sum of member heats (None counts as 0)
    platforms: tuple[str, ...]

    @property
    def title(self) -> str:
        """The hottest member's title (the first member's when none has heat)."""
        return max(self.members, key=lambda t: t.heat or 0.0).title

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.members)


def _overlap_matrix(toks: Sequence[frozenset[str]]) -> np.ndarray:
    """Overlap coefficient |A∩B| / min(|A|, |B|) for every pair; 0 where a side has < 2 tokens."""
    n = len(toks)
    vocab: dict[str, int] = {}
    rows, cols = [], []
    for i, ts in enumerate(toks):
        for t in ts:
            rows.append(i)
            cols.append(vocab.setdefault(t, len(vocab)))
    incidence = np.zeros((n, max(len(vocab), 1)), dtype=np.float32)
    incidence[rows, cols] = 1.0
    shared = incidence @ incidence.T
    sizes = incidence.sum(axis=1)
    smaller = np.minimum(sizes[:, None], sizes[None, :])
    out = np.where(smaller >= 2, shared / np.maximum(smaller, 1.0), 0.0).astype(np.float32)
    np.fill_diagonal(out, 0.0)
    return out


def assignments(clusters: Sequence[Cluster]) -> dict[str, str]:
    """`member topic id → cluster id`, to pass as `previous` next cycle."""
    return {t.id: c.id for c in clusters for t in c.members}


def cluster_topics(
    topics: Sequence[Topic],
    *,
    embedder: Embedder | None = None,
    vectors: np.ndarray | None = None,
    previous: Mapping[str, str] | None = None,
    lexical_threshold: float = 0.6,
    dense_threshold: float = 0.75,
    mixed_dense: float = 0.5,
    mixed_lexical: float = 0.3,
) -> list[Cluster]:
    """Group near-duplicate topics; returns clusters sorted by combined heat, hottest first.

    Dense similarity is rescaled per model (`(cos - background) / (1 - background)`) so the
    thresholds mean the same for compressed e5 cosines and for MiniLM ones.
    """
    from .ranker import CALIBRATION, doc_text

    topics = list(topics)
    n = len(topics)
    toks = [frozenset(tokenize(t.title)) for t in topics]
    sim = None
    if vectors is None and embedder is not None and n:
        vectors = embedder.encode([doc_text(t) for t in topics], role="passage")
    if vectors is not None and n:
        v = np.asarray(vectors, dtype=np.float32)
        bg = 0.0
        name = getattr(embedder, "name", "") if embedder is not None else ""
        for prefix, cal in CALIBRATION.items():
            if name.startswith(prefix):
                bg = max(mu for mu, _sd in cal.values())
        sim = np.clip((v @ v.T - bg) / max(1.0 - bg, 1e-6), -1.0, 1.0)
    # Strong links propose merges (strongest first); a merge happens only when every
    # pair across the two groups is at least weakly related and no platform list
    # would hold two items. Plain transitive closure chains "春晚小品" to "春晚魔术"
    # to "春晚吐槽" until one blob swallows the whole holiday.
    # All pairs at once in numpy (a Python double loop held the GIL for ~0.3 s per re-index).
    lex = _overlap_matrix(toks)
    d = sim if sim is not None else np.zeros((n, n), dtype=np.float32)
    strong_mask = (lex >= lexical_threshold) | (d >= dense_threshold) | ((d >= mixed_dense) & (lex >= mixed_lexical))
    weak = (lex >= mixed_lexical) | (d >= mixed_dense)
    ii, jj = np.nonzero(np.triu(strong_mask, k=1))
    best = np.maximum(d, lex)[ii, jj]
    strong = [(float(s), int(i), int(j)) for s, i, j in zip(best, ii, jj, strict=True)]
    lists = [(t.source, str(t.extra.get("list", ""))) for t in topics]
    group_of = list(range(n))
    members_of: dict[int, list[int]] = {i: [i] for i in range(n)}
    for _score, i, j in sorted(strong, key=lambda x: -x[0]):
        gi, gj = group_of[i], group_of[j]
        if gi == gj:
            continue
        a, b = members_of[gi], members_of[gj]
        if {lists[x] for x in a} & {lists[y] for y in b}:
            continue
        if not all(weak[x, y] for x in a for y in b):
            continue
        keep, gone = (gi, gj) if gi < gj else (gj, gi)
        members_of[keep] = members_of[keep] + members_of.pop(gone)
        for x in members_of[keep]:
            group_of[x] = keep
    groups: dict[int, list[int]] = {root: sorted(idx) for root, idx in members_of.items()}
    previous = previous or {}
    # Each previous id goes to the new group holding most of its old members.
    claims: list[tuple[int, str, int]] = []
    for root, idx in groups.items():
        counts = Counter(previous[topics[i].id] for i in idx if topics[i].id in previous)
        for cid, cnt in counts.items():
            claims.append((cnt, cid, root))
    claims.sort(key=lambda c: (-c[0], c[1], c[2]))
    ids: dict[int, str] = {}
    used: set[str] = set()
    for _cnt, cid, root in claims:
        if root not in ids and cid not in used:
            ids[root] = cid
            used.add(cid)
    clusters = []
    for root, idx in groups.items():
        members = tuple(sorted((topics[i] for i in idx), key=lambda t: (-(t.heat or 0.0), t.id)))
        known = ids.get(root)
        cid = known if known is not None else "c-" + stable_id(min(t.id for t in members))
        if known is None:
            if cid in used:
                cid = "c-" + stable_id(*sorted(t.id for t in members))
            used.add(cid)
        platforms = tuple(dict.fromkeys(t.source for t in members))
        heat = float(sum(t.heat or 0.0 for t in members))
        clusters.append(Cluster(cid, members, heat, platforms))
    clusters.sort(key=lambda c: (-c.heat, c.id))
    return clusters
