"""Under overload the ranker answers from the lexical channel when the model would answer too late.

A line is shed by its deadline, not by the queue's length: one whose encode would finish in
time waits for the model however many lines are ahead of it.
"""

from __future__ import annotations

import asyncio
import threading
import time

from agent.models import Topic
from agent.ranking import HashEmbedder, MicroBatcher, Ranker
from agent.ranking.encoder import LATE_FACTOR

from .conftest import relevance_query

TITLES = ["春晚机器人扭秧歌", "哪吒2票房破百亿", "春运返程高峰"]


class TimedEmbedder(HashEmbedder):
    """Takes `seconds` per call; holds every call while `release` is clear."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.release = threading.Event()
        self.release.set()

    def encode(self, texts, *, role="query"):
        self.release.wait(5)
        time.sleep(self.seconds * len(texts))
        return super().encode(texts, role=role)


def ranker_with(embedder: TimedEmbedder, deadline_s: float) -> Ranker:
    topics = [Topic(source="weibo", item_id=str(i), title=t) for i, t in enumerate(TITLES)]
    return Ranker(embedder, topics, batcher=MicroBatcher(embedder, max_items=1), encode_deadline_s=deadline_s)


async def test_a_line_that_would_miss_its_deadline_is_ranked_lexically_at_once():
    embedder = TimedEmbedder(0.1)
    ranker = ranker_with(embedder, deadline_s=0.25)
    await ranker.rank(relevance_query("春晚 开场", top_k=1))  # the model's cost is measured on a real call
    embedder.release.clear()
    waiting = [asyncio.create_task(ranker.rank(relevance_query(f"春晚 {i}", top_k=1))) for i in range(4)]
    await asyncio.sleep(0.2)  # one encode runs, three wait: 0.5 s of work ahead of the next line
    started = time.perf_counter()
    result = await asyncio.wait_for(ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1)), 1)
    assert time.perf_counter() - started < 0.1  # answered now, not after the queue
    assert result[0].topic.title == "哪吒2票房破百亿" and result[0].components["dense"] == 0.0
    assert ranker.shed >= 1  # the earlier lines that could not make it were shed too
    embedder.release.set()
    await asyncio.gather(*waiting)
    ranker.batcher.close()


async def test_a_line_that_makes_its_deadline_waits_for_the_model_behind_a_queue():
    embedder = TimedEmbedder(0.02)
    ranker = ranker_with(embedder, deadline_s=1.0)
    await ranker.rank(relevance_query("春晚 开场", top_k=1))
    embedder.release.clear()
    waiting = [asyncio.create_task(ranker.rank(relevance_query(f"春晚 {i}", top_k=1))) for i in range(4)]
    await asyncio.sleep(0.1)  # four lines ahead, about 0.1 s of work: well within the deadline
    late = asyncio.create_task(ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1)))
    await asyncio.sleep(0.05)
    embedder.release.set()
    result = await asyncio.wait_for(late, 2)
    assert result[0].topic.title == "哪吒2票房破百亿" and result[0].components["dense"] != 0.0
    assert ranker.shed == 0
    await asyncio.gather(*waiting)
    ranker.batcher.close()


async def test_nothing_is_shed_before_the_model_has_been_timed():
    embedder = TimedEmbedder(0.01)
    ranker = ranker_with(embedder, deadline_s=0.001)
    assert ranker.batcher.expected_finish_s(1) == 0.0
    result = await ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1))
    assert result[0].components["dense"] != 0.0 and ranker.shed == 0
    assert ranker.batcher.seconds_per_text is not None and ranker.batcher.seconds_per_text >= 0.01
    ranker.batcher.close()


async def test_a_long_line_on_an_idle_model_is_encoded_even_past_the_deadline():
    embedder = TimedEmbedder(0.1)
    ranker = ranker_with(embedder, deadline_s=0.05)
    await ranker.rank(relevance_query("春晚 开场", top_k=1))  # timed: 0.1 s per line, twice the deadline
    result = await ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1))
    assert result[0].components["dense"] != 0.0 and ranker.shed == 0
    ranker.batcher.close()


async def test_a_line_let_queue_that_still_comes_late_is_ranked_lexically_by_its_bound():
    """The deadline is an estimate read on an idle engine; the wait itself is bounded too (`LATE_FACTOR`)."""
    embedder = TimedEmbedder(0.02)
    ranker = ranker_with(embedder, deadline_s=0.1)
    await ranker.rank(relevance_query("春晚 开场", top_k=1))  # timed: 0.02 s a line, well within the deadline
    embedder.release.clear()  # the engine stalls (a host whose cores are taken), as the estimate cannot know
    stalled = asyncio.create_task(ranker.rank(relevance_query("春晚 舞台", top_k=1)))
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    result = await asyncio.wait_for(ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1)), 2)
    waited = time.perf_counter() - started
    assert LATE_FACTOR * 0.1 <= waited < LATE_FACTOR * 0.1 + 0.15  # queued, then answered at its bound
    assert result[0].topic.title == "哪吒2票房破百亿" and result[0].components["dense"] == 0.0
    requests = ranker.batcher.batched_requests
    embedder.release.set()
    await asyncio.wait_for(stalled, 2)
    await asyncio.sleep(0.1)
    assert ranker.batcher.batched_requests == requests  # the late line's request left the queue unencoded
    ranker.batcher.close()
