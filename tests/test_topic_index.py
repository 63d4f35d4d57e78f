"""The topic index: a burst of refresh requests costs one rebuild, and a reader always sees
one whole generation (stored rows and clusters of the same build)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from agent.collect import Collector
from agent.errors import StoreError
from agent.ranking import HashEmbedder, Ranker, RankQuery
from agent.settings import Settings
from agent.store import open_store
from agent.topic_index import TopicIndex


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
    with filled.transaction() as db:  # one topic leaves its list
        db.execute("DELETE FROM topics WHERE id = ?", (gone,))
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
    from agent.models import Topic

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
    from agent.models import Topic

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
