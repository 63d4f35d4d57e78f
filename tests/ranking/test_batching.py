"""`MicroBatcher`: encodes gathered off the event loop, a bounded queue, errors reaching every caller."""

from __future__ import annotations

import asyncio
import threading
import time

import numpy as np
import pytest

from agent.errors import OverloadError
from agent.ranking import HashEmbedder, MicroBatcher


class SlowEmbedder(HashEmbedder):
    def __init__(self, delay: float = 0.05) -> None:
        super().__init__()
        self.delay = delay
        self.batches: list[int] = []
        self.threads: set[str] = set()

    def encode(self, texts, *, role="query"):
        self.batches.append(len(texts))
        self.threads.add(threading.current_thread().name)
        time.sleep(self.delay)
        return super().encode(texts, role=role)


async def test_idle_request_goes_straight_through() -> None:
    emb = SlowEmbedder(delay=0.0)
    b = MicroBatcher(emb, max_wait_ms=50)
    t0 = time.perf_counter()
    out = await b.encode(["hello"], role="query")
    assert time.perf_counter() - t0 < 0.04  # did not wait max_wait_ms
    assert out.shape == (1, emb.dim) and b.model_calls == 1
    assert all(name.startswith("trendlens-embed") for name in emb.threads)  # off the event loop
    b.close()


async def test_concurrent_requests_are_gathered_into_fewer_calls() -> None:
    emb = SlowEmbedder(delay=0.03)
    b = MicroBatcher(emb, max_items=64, max_wait_ms=1)
    texts = [f"text number {i}" for i in range(40)]
    outs = await asyncio.gather(*(b.encode([t]) for t in texts))
    assert b.model_calls < 10, emb.batches
    assert max(emb.batches) > 1
    ref = HashEmbedder().encode(texts)
    np.testing.assert_allclose(np.vstack(outs), ref, atol=1e-6)  # each caller got its own row
    assert b.queue_depth == 0
    b.close()


async def test_overflow_is_an_overload_error() -> None:
    emb = SlowEmbedder(delay=0.05)
    b = MicroBatcher(emb, max_items=4, max_wait_ms=0, max_queue=3)
    first = asyncio.ensure_future(b.encode(["a"]))
    await asyncio.sleep(0.01)  # model now busy
    waiting = [asyncio.ensure_future(b.encode([f"q{i}"])) for i in range(3)]
    await asyncio.sleep(0)
    assert b.queue_depth == 3
    with pytest.raises(OverloadError, match="queue full"):
        await b.encode(["one too many"])
    await asyncio.gather(first, *waiting)
    b.close()


async def test_model_errors_reach_every_waiting_caller() -> None:
    class Broken(HashEmbedder):
        def encode(self, texts, *, role="query"):
            time.sleep(0.02)
            raise RuntimeError("boom")

    b = MicroBatcher(Broken(), max_wait_ms=0)
    results = await asyncio.gather(*(b.encode([str(i)]) for i in range(5)), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in results)
    b.close()

