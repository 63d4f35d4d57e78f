"""The stories made from the groups, with ids that last across fetch cycles, hottest first.

A group's story is made again only when its members or their heat changed (`unbuild`); the
rest are kept as they were, with their ids and their place in the order:

- a story keeps the id most of its members had (a story that gains a member keeps its id);
- a brand-new story gets `c-` + a hash of its smallest member id, which does not depend on
  list order or fetch time;
- the order (by fair heat) is kept across updates: a few changes are taken out and put in at
  their place, many sort again.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, TypeVar

from agent.models import Topic, stable_id
from agent.ranking.fair_heat import normalised_heat
from agent.ranking.pacing import paced, sorted_paced, step_aside
from agent.stories.linking import Link, Story

__all__ = ["BuiltStories", "Layered"]

V = TypeVar("V")
Key = tuple[float, float, str, str]  # (-score, -heat, story id, group root): hottest first


@dataclass
class BuiltStories:
    previous: dict[str, str] = field(default_factory=dict)  # member topic id -> the story id it had
    norm: dict[str, float] = field(default_factory=dict)  # fair heat of each held topic
    stale: set[str] = field(default_factory=set)  # topics whose story must be made again
    unbuilt: set[str] = field(default_factory=set)  # roots whose story may have to be made (again)
    _built: dict[str, Story] = field(default_factory=dict)  # group root -> its story, while unchanged
    _taken: set[str] = field(default_factory=set)  # story ids of `_built`
    # stories hottest first, as keys; `_gone` are entries to take out
    _order: list[Key] = field(default_factory=list)
    _listed: list[Story] = field(default_factory=list)  # the story of each of `_order`, in its order
    _key: dict[str, Key] = field(default_factory=dict)
    _gone: set[Key] = field(default_factory=set)
    # each held topic's story, and each story's member ids, kept as stories are made again: a reader
    # gets copies (`story_maps`), not maps walked again over every held topic at each update
    _story_of: dict[str, Story] = field(default_factory=dict)
    _ids_of: dict[str, frozenset[str]] = field(default_factory=dict)  # story id -> its member ids
    # what `story_maps` hands out: a copy made now and then, and the keys changed since it was made
    _published: tuple[dict[str, Story], dict[str, frozenset[str]]] | None = None
    _moved: tuple[set[str], set[str]] = field(default_factory=lambda: (set(), set()))

    def is_built(self, root: str) -> bool:
        return root in self._built

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

    def unbuild(self, root: str) -> None:
        """The story of this group must be made again (its members or their heat changed)."""
        self.unbuilt.add(root)
        story = self._built.pop(root, None)
        if story is not None:
            self._taken.discard(story.id)
            self._gone.add(self._key.pop(root))
            # every unbuild of an update comes before its builds, so a story id made again is not popped here
            story_of = self._story_of
            moved_topics, moved_ids = self._moved
            moved_ids.add(story.id)
            for tid in self._ids_of.pop(story.id, ()):
                if story_of.get(tid) is story:
                    del story_of[tid]
                    moved_topics.add(tid)

    def refresh_heat(self, topics: Mapping[str, Topic], by_source: Mapping[str, set[str]],
                     touched: set[str]) -> None:
        """Fair heat again for the platforms whose lists changed (`touched`, emptied); their members'
        stories are stale."""
        for src in touched:
            members = [tid for tid in by_source.get(src, ()) if tid in topics]
            norm = normalised_heat([topics[tid] for tid in members])
            for tid in members:
                step_aside()
                if self.norm.get(tid) != norm[tid]:
                    self.norm[tid] = norm[tid]
                    self.stale.add(tid)
        touched.clear()

    def make(self, todo: Sequence[str], members_of: Mapping[str, list[str]],
             links_of: Mapping[str, Sequence[Link]], topics: Mapping[str, Topic]) -> list[Story]:
        """Make the stories of the groups `todo` (root -> `members_of`) and return every story, hottest
        first."""
        ids = self._claim_ids(todo, members_of)
        fresh = [self._make(root, members_of[root], ids.get(root), links_of.get(root, ()), topics)
                 for root in todo]
        return self._reorder(fresh)

    def _claim_ids(self, todo: Sequence[str], members_of: Mapping[str, list[str]]) -> dict[str, str]:
        """Each previous id goes to the new group holding most of its old members."""
        previous = self.previous
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
        return ids

    def _new_id(self, idx: list[str]) -> str:
        used = self._taken
        cid = "c-" + stable_id(min(idx))
        if cid in used:
            cid = "c-" + stable_id(*sorted(idx))
        # a lone item's two ids are one; the story that kept its old id holds it: count on
        again = 1
        while cid in used:
            cid = "c-" + stable_id(*sorted(idx), str(again))
            again += 1
        used.add(cid)
        return cid

    def _make(self, root: str, idx: list[str], known: str | None, links: Sequence[Link],
              topics: Mapping[str, Topic]) -> Key:
        step_aside()
        norm = self.norm
        order = sorted_paced(idx, key=lambda i: (-norm.get(i, 0.0), i))
        members = tuple(topics[i] for i in paced(order, 256))
        cid = known if known is not None else self._new_id(idx)
        best: dict[str, float] = {}
        for i, t in zip(order, paced(members, 256), strict=True):
            best.setdefault(t.source, norm.get(i, 0.0))  # members come hottest first
        heat = float(sum(t.heat or 0.0 for t in paced(members, 256)))
        story = self._built[root] = Story(cid, members, heat, tuple(best), sum(best.values()), tuple(links))
        self._ids_of[cid] = frozenset(idx)
        moved_topics, moved_ids = self._moved
        moved_ids.add(cid)
        moved_topics.update(idx)
        previous, story_of = self.previous, self._story_of
        for i in paced(idx, 256):
            previous[i] = cid
            story_of[i] = story
        key = self._key[root] = (-story.score, -story.heat, cid, root)
        return key

    def _reorder(self, fresh: list[Key]) -> list[Story]:
        """The order kept from the last update, less the stories made again, plus the new ones."""
        ranked, listed, built = self._order, self._listed, self._built
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
