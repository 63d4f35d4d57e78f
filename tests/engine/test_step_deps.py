"""`PartsDeps`: each call a step or the chat makes, answered by the part that owns it."""

from __future__ import annotations

import pytest

from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings


@pytest.fixture
async def started(tmp_path):
    """A started runtime on the offline snapshot, fetched once, with the hash test embedder."""
    rt = Runtime.build(Settings(data_dir=tmp_path, offline=True), embedder=HashEmbedder())
    statuses = await rt.deps.fetch(None)
    await rt.start()
    yield rt, statuses
    await rt.aclose()


async def test_fetch_runs_the_fetch_job_and_answers_each_sources_status(started):
    rt, statuses = started
    assert "weibo" in statuses and set(statuses.values()) == {"ok"}
    assert {s.topic.source for s in rt.store.current()} >= {"weibo", "zhihu"}


async def test_a_topic_ranked_before_is_ranked_again_as_the_index_holds_it_now(started):
    rt, _ = started
    topic_id, stored = next(iter(rt.index.stored.items()))
    again = rt.deps.ranked_again(topic_id, 0.5)
    assert again is not None and again.id == topic_id and again.topic == stored.topic and again.score == 0.5
    assert rt.deps.ranked_again("weibo:no-longer-listed", 0.5) is None


async def test_heat_history_is_the_stored_heat_of_the_topic(started):
    rt, _ = started
    topic_id, stored = next(iter(rt.index.stored.items()))
    assert await rt.deps.heat_history(topic_id) == [stored.topic.heat]


async def test_without_an_llm_configured_there_is_none_to_word_answers(started):
    rt, _ = started
    assert rt.deps.llm is None
