"""Cross-platform merge: one story on Weibo, Zhihu, Baidu and Douyin becomes one cluster.

Headlines are compared on their *event* terms (`story_terms`: numbers read alike in any
script, a speaker prefix such as 外交部 or 海关总署 set apart, question words dropped),
weighted by rarity over everything held (IDF), as an overlap coefficient
`Σ w(shared) / min(Σ w(a), Σ w(b))`. Two headlines link when

- they share at least two event terms, count nothing differently (3名 vs 4名), and
- the overlap is high (≥ 0.25), or fair and backed by a shared quantity (≥ 0.18 with 3口 on
  both), or modest but backed by the embedding (≥ 0.1 with a calibrated cosine ≥ 0.93).

Embeddings alone never link: short headlines of one list sit close together in any small
model's space whatever they say. A link that shares only a speaker is no link.

Groups grow strongest link first, and only while every pair of members on two platforms
stays at least weakly related, so "春晚小品" does not chain through "春晚魔术" to "春晚吐槽".
A story may hold several items of one list (the notice, the hotline and the official
reaction to one incident), but only once it spans two platforms: look-alikes within one list
(three items about one drama) stay apart.

Cost grows with the new work, not with the square of what is held (`StoryIndex`): a new
topic is compared only with its likely neighbours, its top-k dense neighbours by one
matrix-vector product and the topics sharing one of its rarer terms (inverted index);
memory is O(n·d) for the vectors plus O(n·k) links.

Cluster ids are stable across fetch cycles: a cluster keeps the id that most of its members
had; a brand-new cluster gets `c-` + a hash of its smallest member id, which does not depend
on list order or fetch time.
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import StoppingError
from ..models import Topic, stable_id
from .embedders import Embedder
from .heat import normalised_heat
from .story_terms import StoryTerms, story_terms

__all__ = ["Cluster", "Link", "MergeRules", "StoryIndex", "assignments", "background_of", "cluster_topics"]


@dataclass(frozen=True)
class Link:
    """Why two members are one story: the event terms they share and how alike they are."""

    a: str
    b: str
    shared: tuple[str, ...]
    overlap: float  # IDF-weighted overlap coefficient of event terms
    cosine: float | None  # calibrated embedding similarity, when there are vectors

    def public(self) -> dict[str, object]:
        return {"a": self.a, "b": self.b, "shared": list(self.shared), "overlap": round(self.overlap, 3),
                "cosine": None if self.cosine is None else round(self.cosine, 3)}


@dataclass(frozen=True)
class Cluster:
    id: str
    members: tuple[Topic, ...]
    heat: float  # sum of member raw heats (None counts as 0): kept for display only
    platforms: tuple[str, ...]
    score: float = 0.0  # fair heat: each platform's best normalised heat, summed (see heat.py)
    links: tuple[Link, ...] = ()  # the links that merged the members, strongest first

    @property
    def title(self) -> str:
        """The hottest member's title (the first member's when none has heat)."""
        return self.members[0].title

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.members)

    def why(self) -> str:
        """A short "why merged" line: shared terms, or the similarity, of the merging links."""
        if not self.links:
            return ""
        parts = []
        for link in self.links[:3]:
            terms = "、".join(link.shared[:4])
            sim = f"overlap {link.overlap:.2f}" + (f", cosine {link.cosine:.2f}" if link.cosine is not None else "")
            parts.append(f"{terms} ({sim})" if terms else sim)
        return "shared: " + "; ".join(parts)


@dataclass(frozen=True, kw_only=True)
class MergeRules:
    overlap: float = 0.25
    quantity_overlap: float = 0.18
    dense_overlap: float = 0.10
    dense: float = 0.93
    weak_overlap: float = 0.10
    weak_dense: float = 0.95
    min_shared: int = 2
    min_chars: int = 4  # distinct characters the shared terms must cover
    neighbours: int = 10  # dense top-k per new topic
    rare_df: int = 16  # a term in more held topics than this proposes no candidates
    max_candidates: int = 48  # lexical candidates per new topic, rarest terms first


def assignments(clusters: Sequence[Cluster]) -> dict[str, str]:
    """`member topic id → cluster id`, to pass as `previous` next cycle."""
    return {t.id: c.id for c in clusters for t in c.members}


def background_of(embedder: Embedder | None) -> float:
    """The embedder's cosine of unrelated texts, so thresholds mean the same for every model."""
    from .ranker import CALIBRATION

    name = getattr(embedder, "name", "") if embedder is not None else ""
    for prefix, cal in CALIBRATION.items():
        if name.startswith(prefix):
            return max(mu for mu, _sd in cal.values())
    return 0.0


@dataclass
class _Edge:
    score: float
    strong: bool
    link: Link


@dataclass
class StoryIndex:
    """Held topics, their event terms and vectors, and the links between likely neighbours.

    `update(topics)` makes the held set equal to `topics`: new topics are compared with their
    neighbours only, gone ones are dropped, and clusters are rebuilt from the held links.
    Term weights (IDF) are those at the time a pair was compared.
    """

    rules: MergeRules = field(default_factory=MergeRules)
    background: float = 0.0  # the embedder's cosine of unrelated texts (see ranker.CALIBRATION)
    _topics: dict[str, Topic] = field(default_factory=dict)
    _terms: dict[str, StoryTerms] = field(default_factory=dict)
    _row: dict[str, int] = field(default_factory=dict)
    _ids: list[str | None] = field(default_factory=list)
    _free: list[int] = field(default_factory=list)
    _vectors: np.ndarray | None = None
    _df: Counter[str] = field(default_factory=Counter)
    _postings: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _edges: dict[str, dict[str, _Edge]] = field(default_factory=lambda: defaultdict(dict))
    _previous: dict[str, str] = field(default_factory=dict)
    # groups as of the last update (root = smallest member id); only those touched by a change
    # are formed again, the rest are kept as they were
    _groups: dict[str, list[str]] = field(default_factory=dict)
    _group_of: dict[str, str] = field(default_factory=dict)
    _group_links: dict[str, list[Link]] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)
    _weights: dict[tuple[str, int], float] = field(default_factory=dict)  # IDF cache for one update
    _built: dict[str, Cluster] = field(default_factory=dict)  # group root -> its cluster, while unchanged
    _taken: set[str] = field(default_factory=set)  # cluster ids of `_built`
    _norm: dict[str, float] = field(default_factory=dict)  # fair heat of each held topic
    _by_source: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _touched: set[str] = field(default_factory=set)  # platforms whose list changed since the last update
    _stale: set[str] = field(default_factory=set)  # topics whose cluster must be made again
    _pending: set[str] = field(default_factory=set)  # held but not yet compared (a cancelled update)
    # clusters hottest first, as (-score, -heat, id, root); `_gone` are entries to take out
    _order: list[tuple[float, float, str, str]] = field(default_factory=list)
    _key: dict[str, tuple[float, float, str, str]] = field(default_factory=dict)
    _gone: set[tuple[float, float, str, str]] = field(default_factory=set)
    _totals: dict[str, float] = field(default_factory=dict)  # Σ IDF of a topic's terms, same update

    def __len__(self) -> int:
        return len(self._topics)

    # -- holding ---------------------------------------------------------------
    def _drop(self, tid: str) -> None:
        topic = self._topics.pop(tid)
        self._touched.add(topic.source)
        self._by_source[topic.source].discard(tid)
        self._norm.pop(tid, None)
        self._pending.discard(tid)
        root = self._group_of.pop(tid, None)
        if root is not None:  # its group must be formed again without it
            self._dirty.update(self._groups.get(root, []))
            self._forget(root)
        self._dirty.update(self._edges.get(tid, {}))
        for term in self._terms.pop(tid).terms:
            self._df[term] -= 1
            if self._df[term] <= 0:
                del self._df[term]
            posting = self._postings.get(term)
            if posting is not None:
                posting.discard(tid)
                if not posting:
                    del self._postings[term]
        for other in self._edges.pop(tid, {}):
            self._edges.get(other, {}).pop(tid, None)
        row = self._row.pop(tid, None)
        if row is not None:
            self._ids[row] = None
            self._free.append(row)

    def _hold(self, topic: Topic, vector: np.ndarray | None) -> None:
        tid = topic.id
        self._topics[tid] = topic
        self._touched.add(topic.source)
        self._by_source[topic.source].add(tid)
        terms = story_terms(topic.title)
        self._terms[tid] = terms
        for term in terms.terms:
            self._df[term] += 1
            self._postings[term].add(tid)
        if vector is None:
            return
        if self._vectors is None or self._vectors.shape[1] != vector.shape[0]:
            self._vectors = np.zeros((max(64, 2 * len(self._topics)), vector.shape[0]), dtype=np.float32)
            self._ids, self._free, self._row = [None] * len(self._vectors), list(range(len(self._vectors)))[::-1], {}
        if not self._free:
            grow = len(self._vectors)
            self._vectors = np.vstack([self._vectors, np.zeros_like(self._vectors)])
            self._ids.extend([None] * grow)
            self._free.extend(range(2 * grow - 1, grow - 1, -1))
        row = self._free.pop()
        self._vectors[row] = vector
        self._ids[row] = tid
        self._row[tid] = row

    # -- comparing ---------------------------------------------------------------
    def _weight(self, term: str, own: int = 1) -> float:
        """IDF of a term over the other held topics: `own` of the two compared hold it, and
        those do not count, so a pair's shared terms are not made common by the pair itself."""
        key = (term, own)
        w = self._weights.get(key)
        if w is None:
            n = len(self._topics)
            w = self._weights[key] = math.log((n + 1) / (max(self._df.get(term, 0) - own, 0) + 1))
        return w

    def _total(self, tid: str) -> float:
        total = self._totals.get(tid)
        if total is None:
            total = self._totals[tid] = sum(self._weight(t, 1) for t in self._terms[tid].terms)
        return total

    def _lexical_candidates(self, tid: str) -> set[str]:
        out: set[str] = set()
        rules = self.rules
        terms = sorted(self._terms[tid].terms, key=lambda t: self._df.get(t, 0))
        for term in terms:
            if self._df.get(term, 0) > rules.rare_df or len(out) >= rules.max_candidates:
                break
            out |= self._postings.get(term, set())
        return out

    def _dense_candidates(self, fresh: list[str], block: int = 256) -> dict[str, set[str]]:
        """Top-k held neighbours of each new topic: a (block × n) product at a time, so memory
        stays O(n·d) and the work is one matrix product per block, not a loop of dot products."""
        out: dict[str, set[str]] = defaultdict(set)
        rows = [(tid, self._row[tid]) for tid in fresh if tid in self._row]
        if self._vectors is None or not rows:
            return out
        k = min(self.rules.neighbours + 1, len(self._vectors))
        for start in range(0, len(rows), block):
            chunk = rows[start:start + block]
            sims = self._vectors[[r for _tid, r in chunk]] @ self._vectors.T
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            for (tid, _row), near in zip(chunk, top, strict=True):
                out[tid].update(o for o in (self._ids[int(r)] for r in near) if o is not None)
        return out

    def _compare(self, a: str, b: str) -> _Edge | None:
        ta, tb = self._terms[a], self._terms[b]
        rules = self.rules
        shared = ta.terms & tb.terms
        if not shared:
            return None
        # Counting one thing with different numbers (3名 vs 4名) is a different event.
        shared_qty = False
        if ta.quantities and tb.quantities:
            qa: dict[str, set[str]] = defaultdict(set)
            qb: dict[str, set[str]] = defaultdict(set)
            for unit, num in ta.quantities:
                qa[unit].add(num)
            for unit, num in tb.quantities:
                qb[unit].add(num)
            for unit in qa.keys() & qb.keys():
                if not qa[unit] & qb[unit]:
                    return None
                shared_qty = True
        both = sum(self._weight(t, 2) for t in shared)
        alone = sum(self._weight(t, 1) for t in shared)
        wa = self._total(a) - alone + both
        wb = self._total(b) - alone + both
        overlap = both / max(min(wa, wb), 1e-9)
        cosine = None
        ra, rb = self._row.get(a), self._row.get(b)
        if ra is not None and rb is not None and self._vectors is not None:
            raw = float(self._vectors[ra] @ self._vectors[rb])
            cosine = (raw - self.background) / max(1.0 - self.background, 1e-6)
        dense = cosine if cosine is not None else -1.0
        # two pieces of one word (关税, 税战 of 关税战) are one theme word, not an event
        strong = len(shared) >= rules.min_shared and len(set("".join(shared))) >= rules.min_chars and (
            overlap >= rules.overlap
            or (shared_qty and overlap >= rules.quantity_overlap)
            or (overlap >= rules.dense_overlap and dense >= rules.dense))
        weak = strong or overlap >= rules.weak_overlap or dense >= rules.weak_dense
        if not weak:
            return None
        ordered = tuple(sorted(shared, key=lambda t: (-self._weight(t), t)))
        return _Edge(score=max(overlap, dense if strong else 0.0), strong=strong,
                     link=Link(a, b, ordered, overlap, cosine))

    # -- updating --------------------------------------------------------------------
    def update(self, topics: Sequence[Topic], vectors: np.ndarray | None = None, *,
               cancel: threading.Event | None = None, ids: Sequence[str] | None = None) -> list[Cluster]:
        """Hold exactly `topics` (row-aligned `vectors`, unit length, optional) and return the clusters,
        hottest first by fair heat.

        `cancel` abandons the update between comparison blocks (`StoppingError`); the index stays
        usable and compares what it had left at its next update. `ids` are the topics' ids when
        the caller has them already (`IndexSnapshot.ids`).
        """
        if ids is None:
            ids = [t.id for t in topics]  # `Topic.id` is computed: read it once
        wanted = dict(zip(ids, range(len(ids)), strict=True))
        if len(wanted) < len(ids):  # a list naming one item twice holds it once, the first time
            wanted = {}
            for i, tid in enumerate(ids):
                wanted.setdefault(tid, i)
        for tid in self._topics.keys() - wanted.keys():
            self._drop(tid)
            self._previous.pop(tid, None)
        fresh = []
        held_topics = self._topics
        for tid, i in wanted.items():
            t = topics[i]
            held = held_topics.get(tid)
            if held is t:
                continue
            if held is not None and held.title == t.title:
                if held.heat != t.heat or held.rank != t.rank or held.source != t.source:
                    held_topics[tid] = t  # same headline: new heat and rank, same links
                    self._stale.add(tid)
                    self._touched.add(t.source)
                continue
            if held is not None:
                self._drop(tid)
            self._hold(t, None if vectors is None else np.asarray(vectors[i], dtype=np.float32))
            fresh.append(tid)
        # topics a cancelled update held but never compared are compared now
        left = sorted(self._pending.difference(fresh))
        self._pending.update(fresh)
        fresh = left + fresh
        # all new topics are held before any is compared, so each pair is seen from both sides
        self._weights, self._totals = {}, {}
        block = 256
        for start in range(0, len(fresh), block):
            _check(cancel)
            chunk = fresh[start:start + block]
            dense = self._dense_candidates(chunk, block)
            for tid in chunk:
                candidates = self._lexical_candidates(tid) | dense.get(tid, set())
                candidates.discard(tid)
                for other in candidates:
                    if other in self._edges[tid]:
                        continue
                    edge = self._compare(tid, other)
                    if edge is not None:
                        self._edges[tid][other] = edge
                        self._edges[other][tid] = edge
                        self._dirty.update((tid, other))
                self._pending.discard(tid)
                self._dirty.add(tid)
        _check(cancel)
        return self._clusters()

    def _clusters(self) -> list[Cluster]:
        """Form again the groups a change touched: everything joined to a changed topic by strong
        links (no merge ever crosses those components, so the result equals a full rebuild)."""
        region: set[str] = set()
        todo = [t for t in self._dirty if t in self._topics]
        self._dirty = set()
        while todo:
            tid = todo.pop()
            if tid in region:
                continue
            region.add(tid)
            todo.extend(o for o, e in self._edges.get(tid, {}).items() if e.strong and o not in region)
        for tid in region:
            root = self._group_of.pop(tid, None)
            if root is not None:
                self._forget(root)
        group_of = {tid: tid for tid in region}
        members_of: dict[str, list[str]] = {tid: [tid] for tid in region}
        used_links: dict[str, list[Link]] = defaultdict(list)
        strong = sorted({(e.link.a, e.link.b): e for tid in region for e in self._edges.get(tid, {}).values()
                         if e.strong}.values(), key=lambda e: (-e.score, e.link.a, e.link.b))
        source = {tid: self._topics[tid].source for tid in region}
        # Several passes: a link within one list is usable only once the group spans two platforms.
        for _ in range(3):
            merged = False
            for edge in strong:
                gi, gj = group_of[edge.link.a], group_of[edge.link.b]
                if gi == gj:
                    continue
                a, b = members_of[gi], members_of[gj]
                if len({source[x] for x in a} | {source[y] for y in b}) < 2:
                    continue
                if not all(source[x] == source[y] or y in self._edges.get(x, {}) for x in a for y in b):
                    continue
                keep, gone = (gi, gj) if gi < gj else (gj, gi)
                members_of[keep] = members_of[keep] + members_of.pop(gone)
                used_links[keep] = used_links[keep] + used_links.pop(gone, []) + [edge.link]
                for x in members_of[keep]:
                    group_of[x] = keep
                merged = True
            if not merged:
                break
        for root, idx in members_of.items():
            self._groups[root] = idx
            self._group_links[root] = used_links.get(root, [])
            for x in idx:
                self._group_of[x] = root
        return self._finish()

    def _forget(self, root: str) -> None:
        """A group that is gone or will be formed again: its cluster must be made again too."""
        self._groups.pop(root, None)
        self._group_links.pop(root, None)
        cluster = self._built.pop(root, None)
        if cluster is not None:
            self._taken.discard(cluster.id)
            self._gone.add(self._key.pop(root))

    def _refresh_heat(self) -> None:
        """Fair heat again for the platforms whose lists changed; their members' clusters are stale."""
        topics = self._topics
        for src in self._touched:
            members = [tid for tid in self._by_source.get(src, ()) if tid in topics]
            norm = normalised_heat([topics[tid] for tid in members])
            for tid in members:
                if self._norm.get(tid) != norm[tid]:
                    self._norm[tid] = norm[tid]
                    self._stale.add(tid)
        self._touched = set()

    def _finish(self) -> list[Cluster]:
        """Make the clusters of groups formed again or holding a member whose heat changed; the
        others are kept as they were, with their ids. Returns every cluster, hottest first."""
        self._refresh_heat()
        for tid in self._stale:
            root = self._group_of.get(tid)
            if root is not None and root in self._built:
                cluster = self._built.pop(root)
                self._taken.discard(cluster.id)
                self._gone.add(self._key.pop(root))
        self._stale = set()
        topics = self._topics
        norm = self._norm
        previous = self._previous
        todo = [root for root in self._groups if root not in self._built]
        fresh: list[tuple[float, float, str, str]] = []
        # Each previous id goes to the new group holding most of its old members.
        claims: list[tuple[int, str, str]] = []
        for root in todo:
            idx = self._groups[root]
            if len(idx) == 1:
                cid = previous.get(idx[0])
                if cid is not None:
                    claims.append((1, cid, root))
                continue
            counts = Counter(previous[i] for i in idx if i in previous)
            for cid, cnt in counts.items():
                claims.append((cnt, cid, root))
        claims.sort(key=lambda c: (-c[0], c[1], c[2]))
        ids: dict[str, str] = {}
        used = self._taken
        for _cnt, cid, root in claims:
            if root not in ids and cid not in used:
                ids[root] = cid
                used.add(cid)
        for root in todo:
            idx = self._groups[root]
            order = sorted(idx, key=lambda i: (-norm.get(i, 0.0), i))
            members = tuple(topics[i] for i in order)
            known = ids.get(root)
            cid = known if known is not None else "c-" + stable_id(min(idx))
            if known is None:
                if cid in used:
                    cid = "c-" + stable_id(*sorted(idx))
                used.add(cid)
            best: dict[str, float] = {}
            for i, t in zip(order, members, strict=True):
                best.setdefault(t.source, norm.get(i, 0.0))  # members come hottest first
            heat = float(sum(t.heat or 0.0 for t in members))
            links = tuple(sorted(self._group_links.get(root, []), key=lambda link: -link.overlap))
            cluster = self._built[root] = Cluster(cid, members, heat, tuple(best), sum(best.values()), links)
            for i in idx:
                previous[i] = cid
            key = self._key[root] = (-cluster.score, -cluster.heat, cid, root)
            fresh.append(key)
        # the order kept from the last update, less the clusters made again, plus the new ones
        ranked = self._order
        if len(self._gone) + len(fresh) > len(ranked) // 8:
            gone = self._gone
            ranked = [o for o in ranked if o not in gone] + fresh
            ranked.sort()
        else:
            for old in self._gone:
                at = bisect.bisect_left(ranked, old)
                if at < len(ranked) and ranked[at] == old:
                    del ranked[at]
            for new in fresh:
                bisect.insort(ranked, new)
        self._order, self._gone = ranked, set()
        built = self._built
        return [built[o[3]] for o in ranked]


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise StoppingError("story update abandoned: the service is stopping")


def cluster_topics(
    topics: Sequence[Topic],
    *,
    embedder: Embedder | None = None,
    vectors: np.ndarray | None = None,
    previous: Mapping[str, str] | None = None,
    rules: MergeRules | None = None,
) -> list[Cluster]:
    """Group the topics into stories in one go; returns clusters sorted by fair heat, hottest first.

    The running service keeps a `StoryIndex` instead, so each cycle pays only for its new topics.
    """
    from .ranker import doc_text

    topics = list(topics)
    if vectors is None and embedder is not None and topics:
        vectors = embedder.encode([doc_text(t) for t in topics], role="passage")
    index = StoryIndex(rules=rules or MergeRules(), background=background_of(embedder))
    index._previous = dict(previous or {})
    return index.update(topics, None if vectors is None else np.asarray(vectors, dtype=np.float32))
