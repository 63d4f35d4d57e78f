"""The topic index: a burst of refresh requests costs one rebuild, a reader always sees one whole
generation (stored rows and clusters of the same build), and a rebuild reads again only the
sources that changed yet holds exactly what a full read would."""

from __future__ import annotations

import asyncio
import gc
import logging
import random
from datetime import timedelta

import pytest

from agent.collect.collector import Collector
from agent.collect.fetching import SourceOutcome
from agent.errors import FetchError, StoreError
from agent.index.topic_index import TopicIndex
from agent.models import Topic, utcnow
from agent.ranking import HashEmbedder, Ranker, RankQuery
from agent.settings import Settings
from agent.store import open_store
from agent.stories.grouping import StoryIndex, background_of, link_model_for


@pytest.fixture
async def filled(store, tmp_path):
    collector = Collector(Settings(data_dir=tmp_path / "data", offline=True), store)
    await collector.cycle()  # the synthetic demo snapshot, every source
    yield store
    await collector.aclose()


def _index(store, **kw) -> TopicIndex:
    index = TopicIndex(store, **kw)
    index.ranker = Ranker(HashEmbedder())
    return index


async def test_a_burst_of_requests_costs_one_rebuild(filled):
    index = _index(filled, debounce_s=0.05)
    counts = await asyncio.gather(*(index.refresh() for _ in range(6)))
    assert index.builds == 1
    assert len(set(counts)) == 1 and counts[0] == len(index.stored) > 50


async def test_requests_during_a_build_share_the_one_after_it(filled):
    index = _index(filled)  # no debounce window: the first request starts at once
    await asyncio.gather(*(index.refresh() for _ in range(6)))
    # the first build was already reading when the others asked, so they need (and share) one more
    assert index.builds == 2


async def test_every_caller_returns_with_its_data_indexed(filled, tmp_path):
    index = _index(filled)
    await index.refresh()
    before = set(index.stored)
    gone = next(iter(before))
    old_view = index.view
    source = index.stored[gone].topic.source
    rest = [s.topic for s in index.stored.values() if s.topic.source == source and s.topic.id != gone]
    filled.record_cycle([SourceOutcome(source=source, topics=rest)])  # one topic leaves its list
    await index.refresh()
    assert gone not in index.stored and index.view.generation == old_view.generation + 1
    assert gone in old_view.stored  # a reader holding the old generation keeps a whole, unchanged view


async def test_ranking_gives_one_result_per_story(filled):
    index = _index(filled)
    await index.refresh()
    multi = next(c for c in index.cluster_list() if len({m.source for m in c.members}) > 1)
    ranked = await index.rank(RankQuery(text=multi.members[0].title, top_k=10, prior=False, mmr=False))
    keys = [index.story_key(r.topic.id) for r in ranked]
    assert len(keys) == len(set(keys)) and multi.id in keys
    assert index.members_of({multi.id}) >= {m.id for m in multi.members}


async def test_a_failed_build_reaches_everyone_waiting_and_the_next_build_runs(filled, tmp_path):
    gone = open_store(Settings(data_dir=tmp_path / "gone", database_url=None))
    gone.close()  # a database that went away under the index
    index = _index(gone, debounce_s=0.05)
    results = await asyncio.gather(*(index.refresh() for _ in range(3)), return_exceptions=True)
    assert len(results) == 3 and all(isinstance(r, StoreError) for r in results), results
    index.store = filled
    assert await index.refresh() == len(index.stored) > 0


async def test_before_the_model_is_loaded_nothing_is_indexed(filled):
    index = TopicIndex(filled)
    assert await index.refresh() > 0
    assert index.stored == {} and await index.rank(RankQuery(text="春晚")) == []


async def test_an_index_follows_topics_another_instance_wrote(filled, database_url, tmp_path):
    index = _index(filled)
    await index.refresh()
    assert await index.follow() is False  # nothing new: no rebuild, one small query
    builds = index.builds
    # another instance (its own connection) ingests into the same database
    other = open_store(Settings(data_dir=tmp_path / "data", database_url=database_url))
    try:
        other.ingest([Topic(source="user", item_id="1", title="量子猫咪合唱团全国巡演", heat=9.0)])
    finally:
        other.close()
    assert await index.follow() is True
    assert index.builds == builds + 1
    assert "user:1" in index.stored
    ranked = await index.rank(RankQuery(text="量子猫咪合唱团全国巡演", top_k=1, prior=False, mmr=False))
    assert ranked[0].topic.id == "user:1"
    assert await index.follow() is False


async def test_a_stopping_service_abandons_a_follow_rebuild_quietly(filled, database_url, tmp_path, caplog):
    """The scheduled follow job may be re-indexing when the service stops: that is no error."""
    index = _index(filled)
    await index.refresh()
    other = open_store(Settings(data_dir=tmp_path / "data", database_url=database_url))
    try:
        other.ingest([Topic(source="user", item_id="2", title="量子猫咪合唱团加场", heat=9.0)])
    finally:
        other.close()
    index.ranker.cancel.set()  # what the service's shutdown does
    assert await index.follow() is False
    assert "user:2" not in index.stored
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_follow_job_cancelled_while_its_rebuild_waits_ends_quietly(filled, database_url, tmp_path, caplog):
    """The scheduler cancels its jobs at shutdown; one waiting out the rebuild's debounce then returns (the
    scheduler would log a raised CancelledError with its traceback)."""
    index = _index(filled)
    await index.refresh()
    index.debounce_s = 30.0
    other = open_store(Settings(data_dir=tmp_path / "data", database_url=database_url))
    try:
        other.ingest([Topic(source="user", item_id="3", title="量子猫咪合唱团返场", heat=9.0)])
    finally:
        other.close()
    job = asyncio.ensure_future(index.follow())
    await asyncio.sleep(0.2)  # into the debounce
    job.cancel()
    assert await job is False
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


class _CountingStore:
    """A real store that notes what each `current()` read asked for."""

    def __init__(self, store) -> None:
        self._store = store
        self.reads: list[dict] = []

    def current(self, **kw):
        self.reads.append(kw)
        return self._store.current(**kw)

    def __getattr__(self, name):
        return getattr(self._store, name)


async def test_a_cycle_of_one_source_reads_that_source_again_and_no_other(filled):
    counting = _CountingStore(filled)
    index = _index(counting)
    await index.refresh()
    assert counting.reads == [{}]  # the first build reads everything
    weibo = [s.topic for s in index.stored.values() if s.topic.source == "weibo"]
    counting.reads.clear()
    filled.record_cycle([SourceOutcome(source="weibo", topics=[*weibo[1:], Topic(
        source="weibo", item_id="delta-1", title="量子猫咪合唱团全国巡演", heat=1e9)])])
    await index.refresh()
    assert counting.reads == [{"sources": frozenset({"weibo"})}]
    assert list(index.stored.values()) == filled.current()
    assert weibo[0].id not in index.stored and "weibo:delta-1" in index.stored
    counting.reads.clear()
    await index.refresh()  # nothing new: nothing read
    assert counting.reads == []


_SOURCES = ("weibo", "zhihu", "douyin")
_WORDS = ("春晚", "哪吒2", "票房", "暴雨", "高铁", "发布会", "冠军", "新规", "演唱会", "航天")


def _title(rng: random.Random) -> str:
    return "".join(rng.sample(_WORDS, 3))


def _fetch(rng: random.Random, lists: dict[str, dict[str, Topic]], source: str) -> SourceOutcome:
    """The source's next list: some topics kept (re-heated, some re-worded), some dropped, some new, reordered."""
    if rng.random() < 0.15:
        return SourceOutcome(source=source, error=FetchError(source, "HTTP 503"))
    kept = [t for t in lists[source].values() if rng.random() < 0.7]
    fresh = [Topic(source=source, item_id=f"n{rng.randrange(10**9)}", title=_title(rng))
             for _ in range(rng.randrange(4))]
    rows = kept + fresh
    rng.shuffle(rows)
    out = []
    for rank, t in enumerate(rows, start=1):
        heat = rng.choice([None, float(rng.randrange(1, 5)), float(rng.randrange(1, 10**6))])  # ties too
        title = _title(rng) if rng.random() < 0.2 else t.title
        out.append(t.model_copy(update={"rank": rng.choice([rank, rank, None]), "heat": heat, "title": title}))
    lists[source] = {t.id: t for t in out}
    return SourceOutcome(source=source, topics=out)


def _ingest(rng: random.Random, lists: dict[str, dict[str, Topic]]) -> list[Topic]:
    """User topics: new ones, and some with the id of a fetched topic (the same item, or a `ref` onto it)."""
    out = [Topic(source="user", item_id=f"u{rng.randrange(10**9)}", title=_title(rng), heat=rng.choice([None, 3.0]))]
    held = [t for topics in lists.values() for t in topics.values()]
    if held and rng.random() < 0.5:
        t = rng.choice(held)
        out.append(t.model_copy(update={"heat": 7.0, "title": _title(rng)}))
    if held and rng.random() < 0.3:
        out.append(Topic(source="user", item_id="x", ref=rng.choice(held).id, title=_title(rng), heat=2.0))
    return out


class _FullReads(_CountingStore):
    """A real store that never tells what changed: every rebuild reads everything, as before deltas."""

    def changes_since(self, version):
        return self._store.changes_since(None)


_QUERIES = ("春晚票房", "暴雨高铁", "演唱会冠军", "航天新规发布会")


def _same(a: list[list], b: list[list]) -> bool:
    """The same topics in the same order, scores alike but for float rounding (a lent row's prior vs one
    computed again)."""
    return [[r.id for r in x] for x in a] == [[r.id for r in x] for x in b] and all(
        r.score == pytest.approx(s.score, abs=1e-6) for x, y in zip(a, b, strict=True)
        for r, s in zip(x, y, strict=True))


async def _answers(index: TopicIndex) -> list[list]:
    return [await index.rank(RankQuery(text=text, top_k=8)) for text in _QUERIES]


def _ranker_answers(index: TopicIndex) -> list[list]:
    return [index.ranker.rank_sync(RankQuery(text=text, top_k=12, prior=False, mmr=False)) for text in _QUERIES]


def _story_maps(index: TopicIndex) -> tuple[dict, dict]:
    return index.view.clusters, index.view.members


def _groups(index: TopicIndex) -> set[frozenset[str]]:
    return set(index.view.members.values())


def _derived(stories: list) -> tuple[dict, dict]:
    """The maps the view holds, made again from its stories: what the builds keep must equal them."""
    return ({m.id: c for c in stories for m in c.members},
            {c.id: frozenset(m.id for m in c.members) for c in stories})


@pytest.mark.parametrize("seed", range(6))
async def test_an_index_built_by_delta_holds_what_a_full_read_holds(store, seed):
    rng = random.Random(seed)
    counting = _CountingStore(store)
    index = _index(counting)
    full = _index(_FullReads(store))  # the same series, read in full every time
    # the same snapshots held by a story index that looks at every row each time, not at the delta alone
    every_row = StoryIndex(background=background_of(index.ranker.embedder),
                           model=link_model_for(index.ranker.embedder))
    followed, last_serial = 0, 0
    lists: dict[str, dict[str, Topic]] = {s: {} for s in _SOURCES}
    now = utcnow() - timedelta(days=3)
    pruned = False
    for step in range(24):
        now += timedelta(hours=rng.choice([1, 2, 5]))
        roll = rng.random()
        if roll < 0.6:
            store.record_cycle([_fetch(rng, lists, s) for s in rng.sample(_SOURCES, rng.choice([1, 1, 2]))], now=now)
        elif roll < 0.85:
            store.ingest(_ingest(rng, lists), now=now)
        elif step > 8:
            pruned |= store.prune(1, now=now) > 0
        await index.refresh()
        await full.refresh()
        assert list(index.stored.values()) == store.current(), f"step {step}"
        assert _same(await _answers(index), await _answers(full)), f"step {step}"
        assert _story_maps(index) == _derived(index.cluster_list()), f"step {step}"
        assert _story_maps(full) == _derived(full.cluster_list()), f"step {step}"
        assert _groups(index) == _groups(full), f"step {step}"
        snap = index.ranker.snapshot
        followed += bool(snap.delta is not None and last_serial and snap.delta.base == last_serial)
        every_row.update([e.topic for e in snap.entries], snap.matrix, ids=snap.ids)
        last_serial = snap.serial
        assert every_row.story_maps()[1] == index.view.members, f"step {step}"  # the same stories, ids too
    assert followed > 12  # most story updates read the delta alone
    # most builds read a few sources, not everything; the ranker answers as one built from nothing
    assert sum(1 for r in counting.reads if r == {}) < len(counting.reads) // 2
    scratch = _index(store)
    await scratch.refresh()
    assert _same(_ranker_answers(index), _ranker_answers(scratch))
    assert pruned or seed  # at least one series crosses a prune that removed rows


async def test_a_re_index_through_the_store_leaves_nothing_only_the_cycle_collector_frees(filled):
    # a build freezes what it leaves (ranking/pacing.py): garbage in a cycle then would never be freed
    index = _index(filled)
    await index.refresh()
    weibo = [s.topic for s in index.stored.values() if s.topic.source == "weibo"]

    async def cycle(n: int) -> None:
        filled.record_cycle([SourceOutcome(source="weibo", topics=[*weibo[n % 3:], Topic(
            source="weibo", item_id=f"cycle-{n % 3}", title=f"量子猫咪合唱团第{n % 3}站", heat=1e9)])])
        await index.refresh()

    for n in range(3):  # every title seen once
        await cycle(n)
    gc.collect()
    gc.disable()  # and so nothing is frozen: garbage stays where a collection finds it
    try:
        for n in range(6):
            await cycle(n)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0, f"six re-indexes left {unreachable} objects only the cycle collector frees"
