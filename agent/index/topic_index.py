"""The topic index: the store's current snapshot → the ranker's index and the cross-platform stories.

A rebuild reads from the store only what changed since the last one (`Store.changes_since`):
the current topics of the sources a cycle touched, merged into the rows the live index was
built from in the order a full read gives; everything on the first build, after a prune, or
when the store cannot tell. A row changed outside the store's writes (edited by hand) is seen
at the next full read.

Rebuilds run off the event loop and are coalesced: a rebuild asked for while one is
waiting to start joins it, and one asked for while a build is running is answered by
the single build that follows it, so a burst of fetch jobs costs one extra rebuild, not
one each. Every caller still returns only once an index holding its data is live.
What a query reads (stored topics, clusters) is one immutable `IndexView`, published
with one assignment right after the ranker publishes its own snapshot.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections.abc import Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass, field
from itertools import compress
from typing import TYPE_CHECKING

import numpy as np

from agent.errors import StoppingError, StoreError
from agent.index.story_rank import StoryRanking
from agent.ranking import IndexSnapshot, Ranked, Ranker, RankQuery
from agent.ranking.pacing import a_build
from agent.store import DataVersion, Store, StoredTopic, current_order
from agent.stories.grouping import StoryIndex, background_of, link_model_for
from agent.stories.linking import Story
from agent.stories.occasions import Occasion
from agent.stories.published import StoryView

if TYPE_CHECKING:
    from agent.index.model_loading import LoadedRanker
    from agent.metrics import Metrics

__all__ = ["SCHEDULED_DEBOUNCE_S", "IndexView", "TopicIndex"]

log = logging.getLogger("trendlens.index")

SCHEDULED_DEBOUNCE_S = 1.0
"""The rebuild window while the scheduler fetches: sources with the same interval tick together and
their cycles run one after another, so one window gathers such a burst into one rebuild; captions
see new topics a second later."""


@dataclass(frozen=True)
class IndexView:
    """One published generation of the index; never mutated after it is published."""

    stored: Mapping[str, StoredTopic] = field(default_factory=dict)  # topic id -> its stored row
    # the stories as the story index published them (stories/published.py): read here, never derived again
    story_view: StoryView = field(default_factory=StoryView)
    generation: int = 0
    # (list, opening) pairs that open several of a list's summaries: no item's gist (captions/gist.py)
    repeated_openers: frozenset[tuple[str, str]] = frozenset()

    @property
    def clusters(self) -> Mapping[str, Story]:
        """Topic id -> its story."""
        return self.story_view.story_of

    @property
    def members(self) -> Mapping[str, frozenset[str]]:
        """Story id -> its topic ids."""
        return self.story_view.members

    @property
    def stories(self) -> tuple[Story, ...]:
        """Each story once, hottest first by fair heat."""
        return self.story_view.stories

    @property
    def occasions(self) -> tuple[Occasion, ...]:
        """What many stories share (a gala night), most carried first (stories/occasions.py)."""
        return self.story_view.occasions

    @property
    def occasion_of(self) -> Mapping[str, Occasion]:
        """Story id -> the occasion it sits under."""
        return self.story_view.occasion_of

    @property
    def akin(self) -> Mapping[str, tuple[str, ...]]:
        """Topic id -> the ids of the items of its own list linked to it strongly (stories/published.py)."""
        return self.story_view.akin


class TopicIndex:
    """Owns the ranker's index and the story clusters; the one ranking call of the service."""

    def __init__(self, store: Store, *, debounce_s: float = 0.0, metrics: Metrics | None = None) -> None:
        self.store = store
        self.debounce_s = debounce_s  # how long a requested rebuild waits for more requests to join it
        self.metrics = metrics
        self.ranker: Ranker | None = None  # attached by the composition root once the model is loaded
        self.model_error: str | None = None  # why the attached ranker ranks lexically, when its model failed
        self.view = IndexView()
        self.builds = 0  # rebuilds actually run, for the metrics and the tests
        self._stories: StoryIndex | None = None  # held across builds: keeps cluster ids stable
        self._build_lock = asyncio.Lock()
        self._pending: asyncio.Future[int] | None = None  # the next build, shared by everyone who asks now
        self.built_from: DataVersion | None = None  # the store's data version the live index was read at
        self._rows: list[StoredTopic] | None = None  # what the live index was built from, in `current_order`
        self._built: IndexSnapshot | None = None  # the snapshot built from `_rows`, row for row

    # -- building -----------------------------------------------------------------
    def attach(self, loaded: LoadedRanker) -> None:
        """Index with this ranker from the next build on (until then there is nothing to index into)."""
        self.ranker, self.model_error = loaded.ranker, loaded.model_error

    @property
    def model_name(self) -> str | None:
        """The embedding model ranking uses; None before a ranker is attached or when ranking lexically."""
        embedder = self.ranker.embedder if self.ranker else None
        return getattr(embedder, "name", None) if embedder is not None else None

    async def after_cycle(self, outcomes: Sequence[object]) -> None:
        """The collector's listener: re-index the cycle it just stored (before `attach`, nothing to re-index)."""
        if self.ranker is not None:
            await self.refresh()

    async def refresh(self) -> int:
        """Ask for a rebuild and wait until an index holding the store's current data is live.

        Returns the number of topics indexed. Requests that arrive together share one build.
        """
        if self._pending is not None and not self._pending.done():
            return await asyncio.shield(self._pending)
        loop = asyncio.get_running_loop()
        pending: asyncio.Future[int] = loop.create_future()
        self._pending = pending
        try:
            if self.debounce_s:
                await asyncio.sleep(self.debounce_s)
            async with self._build_lock:  # a running build finishes first; this one reads a newer snapshot
                if self._pending is pending:
                    self._pending = None  # from here on, new requests need a build after this one
                count = await self._build()
        except BaseException as exc:
            if self._pending is pending:
                self._pending = None
            if not pending.done():
                if isinstance(exc, Exception):
                    pending.set_exception(exc)
                    pending.exception()  # marked retrieved: joiners re-raise it themselves
                else:
                    pending.cancel()
            raise
        pending.set_result(count)
        return count

    async def follow(self) -> bool:
        """Re-index when the store holds data this index has not read; True when it did.

        Cycles this instance writes re-index at once (the collector's listener). This catches
        the rest: other instances' fetch jobs and ingests on a shared database, or a `trendlens
        fetch` run beside the service on the same SQLite file. It costs one small query.
        """
        try:
            version = await asyncio.to_thread(self.store.data_version)
        except StoreError as exc:  # the database is away for a moment: ask again on the next tick
            log.warning("cannot see whether other instances wrote topics: %s", exc)
            return False
        if self.ranker is None or version == self.built_from:
            return False
        try:
            await self.refresh()
        except (StoppingError, asyncio.CancelledError):
            # the service is stopping: it abandoned the rebuild, or the scheduler cancelled this job while
            # the rebuild waited for its debounce; a scheduled job that returns is no error in the log
            log.info("re-index for other instances' topics abandoned: the service is stopping")
            return False
        return True

    async def _build(self) -> int:
        # read the changes first: a cycle committing between the two reads is picked up next time
        version, changed = await asyncio.to_thread(self.store.changes_since, self.built_from)
        again: np.ndarray | None = None  # each row's row in the live index, when it is the very same row
        if changed is None or self._rows is None:  # the first build, or the store cannot tell what changed
            current = await asyncio.to_thread(self.store.current)
        else:  # only the sources a cycle touched since the last build are read again
            fresh = await asyncio.to_thread(self.store.current, sources=changed) if changed else []
            current, again = _merged(self._rows, changed, fresh, self._built)
        ranker = self.ranker
        if ranker is None:  # before the model is loaded there is nothing to index into
            return len(current)
        if self._stories is None:
            self._stories = StoryIndex(background=background_of(ranker.embedder),
                                       model=link_model_for(ranker.embedder))
        snapshot, view = await asyncio.to_thread(_indexed, self._stories, ranker, current, self.view.generation + 1,
                                                 again)
        self.builds += 1
        self.view = view  # the one assignment a reader can observe: stored rows and clusters of the same build
        self.built_from, self._rows, self._built = version, current, snapshot
        log.info("indexed %d topics in %d cross-platform clusters", len(current), len(view.stories))
        return len(current)

    # -- reading ------------------------------------------------------------------
    @property
    def stored(self) -> Mapping[str, StoredTopic]:
        return self.view.stored

    @property
    def clusters(self) -> Mapping[str, Story]:
        return self.view.clusters

    @property
    def repeated_openers(self) -> frozenset[tuple[str, str]]:
        return self.view.repeated_openers

    @property
    def occasion_of(self) -> Mapping[str, Occasion]:
        """Story id -> the occasion it sits under, where there is one."""
        return self.view.occasion_of

    @property
    def occasions(self) -> tuple[Occasion, ...]:
        """What many stories of the held lists share (stories/occasions.py)."""
        return self.view.occasions

    @property
    def akin(self) -> Mapping[str, tuple[str, ...]]:
        return self.view.akin

    def cluster_list(self) -> list[Story]:
        """Each current cross-platform cluster once, hottest first by fair heat (`Story.score`)."""
        return list(self.view.stories)

    def story_key(self, topic_id: str) -> str:
        """The cross-platform story a topic belongs to (its cluster id, else itself)."""
        cluster = self.view.clusters.get(topic_id)
        return cluster.id if cluster else topic_id

    def members_of(self, stories: set[str]) -> set[str]:
        """Every topic id belonging to these stories."""
        members = self.view.members
        out = set(stories)
        for story in stories:
            out |= members.get(story, frozenset())
        return out

    async def rank(self, q: RankQuery) -> list[Ranked]:
        """Rank current topics; one result per cross-platform cluster (its best member, `story_rank`).

        The one ranking call of the service: the live loop, chat and search all come here,
        and with `gate` the ranker's relevance gate is the only relevance decision.
        """
        ranker = self.ranker
        if ranker is None:
            return []
        view = self.view  # one generation for the whole call
        started = time.perf_counter()
        out = await StoryRanking(ranker, view.clusters, view.members).rank(q)
        if self.metrics is not None:
            self.metrics.ranking_seconds.observe(time.perf_counter() - started)
        return out


@a_build
def _indexed(stories: StoryIndex, ranker: Ranker, current: list[StoredTopic], generation: int,
             again: np.ndarray | None = None) -> tuple[IndexSnapshot, IndexView]:
    """`current` indexed (the ranker publishes its snapshot) and grouped: the view to publish beside it.
    `again`: each row's row in the live snapshot when it is that very row (`_merged`).

    One build in one worker thread, so no collection starts during either step and what they leave
    is frozen once (ranking/pacing.py)."""
    snapshot = ranker.index(current, passed_again=again)
    return snapshot, _grouped(stories, ranker, snapshot, current, generation)


def _grouped(stories: StoryIndex, ranker: Ranker, snapshot: IndexSnapshot, current: list[StoredTopic],
             generation: int) -> IndexView:
    """The stories of `snapshot`'s topics and the view to publish (blocking: a worker thread's work).

    The view's story maps are what the story index hands out (a copy with the changes since laid over
    it), and the stored rows are read through the snapshot's row of each id (`current` is the snapshot's
    rows, row for row): at 100k held, comprehensions or copies over every topic here cost more than the
    rest of a +50 re-index."""
    stories.follow(snapshot, dense=ranker.embedder is not None, cancel=ranker.cancel)
    view = stories.published  # the stories, their occasions and fair heat, as the story index published them
    # a key held twice (never from a store, whose ids are unique) keeps the last row, as a dict would
    stored = (StoredRows(snapshot.pos, current) if len(snapshot.pos) == len(current)
              else dict(zip(snapshot.ids, current, strict=True)))
    return IndexView(stored=stored, story_view=view, generation=generation,
                     repeated_openers=stories.openers.repeated())


class StoredRows(Mapping[str, StoredTopic]):
    """Topic id -> its stored row, read through the snapshot's row of each id: made in no time, where a
    dict of every held topic cost 20 ms at 100k held on each re-index. Read-only, like the view."""

    def __init__(self, pos: Mapping[str, int], rows: Sequence[StoredTopic]) -> None:
        if len(pos) != len(rows):
            raise ValueError(f"{len(pos)} ids for {len(rows)} stored rows")
        self._pos, self._rows = pos, rows

    def __getitem__(self, topic_id: str) -> StoredTopic:
        return self._rows[self._pos[topic_id]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._pos)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, topic_id: object) -> bool:
        return topic_id in self._pos

    def values(self) -> ValuesView[StoredTopic]:
        return _RowValues(self)


class _RowValues(ValuesView[StoredTopic]):
    """The rows in row order, without a lookup by id for each."""

    _mapping: StoredRows

    def __iter__(self) -> Iterator[StoredTopic]:
        return iter(self._mapping._rows)


def _merged(rows: list[StoredTopic], sources: frozenset[str], fresh: list[StoredTopic],
            built: IndexSnapshot | None = None) -> tuple[list[StoredTopic], np.ndarray | None]:
    """`rows` with the topics of `sources` replaced by `fresh` (both in `current_order`), in that order:
    exactly what `Store.current()` would return. The kept rows are the same objects as before.
    `built`, the snapshot of `rows`, names each source's rows, so the others are kept without a look;
    then each merged row's row in `rows` (-1: fresh) comes beside them, for a cycle's few (else None)."""
    again: list[int] | None = None
    if built is not None and len(built) == len(rows) and sources:
        gone = [built.rows_of[s] for s in sources if s in built.rows_of]
        keep = np.ones(len(rows), dtype=bool)
        if gone:
            keep[np.concatenate(gone)] = False
        out = list(compress(rows, keep.tolist()))
        again = np.flatnonzero(keep).tolist()
    else:
        out = [s for s in rows if s.topic.source not in sources] if sources else list(rows)
    if len(fresh) > 256:  # many: one sort (two sorted runs merge in linear time)
        out.extend(fresh)
        out.sort(key=current_order)
        again = None
    else:  # a cycle's few: each placed by bisection, not a key computed for every row held
        for s in fresh:
            at = bisect.bisect_right(out, current_order(s), key=current_order)
            out.insert(at, s)
            if again is not None:
                again.insert(at, -1)
    return out, None if again is None else np.asarray(again, dtype=np.int64)
