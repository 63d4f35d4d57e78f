"""Micro-batching of concurrent encode requests onto one model worker thread.

When the model is idle a request goes straight through (no added latency). While
it is busy, later requests queue up; when it frees up, the queue is drained in
batches of up to `max_items` texts (waiting at most `max_wait_ms` for more to
arrive if the batch is not full), one model call per batch and per role. The
model always runs in a single worker thread, off the event loop. The queue is
bounded: beyond `max_queue` waiting texts a request fails fast with OverloadError
(the API maps it to 429).

It also keeps the model's measured cost per text (a moving average over recent calls), so a
caller can tell, before it queues, when its encode would finish (`expected_finish_s`).
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
        self, embedder: Embedder, *, max_items: int = 64, max_wait_ms: float = 2.0, max_queue: int = 1024
    ) -> None:
        self.embedder = embedder
        self.max_items = max_items
        self.max_wait_s = max_wait_ms / 1000.0
        self.max_queue = max_queue
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trendlens-embed")
        self._queue: deque[_Request] = deque()
        self._queued_items = 0
        self._busy = False
        self._drainer: asyncio.Task[None] | None = None
        self.model_calls = 0
        self.batched_requests = 0
        self.seconds_per_text: float | None = None  # moving average of the model's cost; None until measured
        self._in_flight = 0  # texts in the model call now running

    @property
    def queue_depth(self) -> int:
        """Texts waiting for the model (not counting the batch being encoded)."""
        return self._queued_items

    @property
    def texts_ahead(self) -> int:
        """Texts a request made now would wait behind: the call running and the queue."""
        return self._in_flight + self._queued_items

    def expected_finish_s(self, texts: int = 1) -> float:
        """Seconds from now until `texts` more, queued now, would be encoded (0 before any is measured).

        Counts the call running now as a whole (its elapsed part is not known here), so the
        estimate errs on the late side, which is the side a deadline can afford.
        """
        per = self.seconds_per_text
        if per is None:
            return 0.0
        return (self.texts_ahead + texts) * per

    def _encode_sync(self, texts: list[str], role: Role) -> np.ndarray:
        self.model_calls += 1
        self._in_flight = len(texts)
        started = time.perf_counter()
        try:
            return self.embedder.encode(texts, role=role)
        finally:
            per = (time.perf_counter() - started) / len(texts)
            # weight 0.2: follows a machine that gets busier within a few calls, ignores one slow call
            self.seconds_per_text = per if self.seconds_per_text is None else 0.8 * self.seconds_per_text + 0.2 * per
            self._in_flight = 0

    async def encode(self, texts: Sequence[str], role: Role = "query") -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        loop = asyncio.get_running_loop()
        if not self._busy and not self._queue:
            self._busy = True
            try:
                return await loop.run_in_executor(self._executor, self._encode_sync, texts, role)
            finally:
                self._busy = False
                self._kick()
        if self._queued_items + len(texts) > self.max_queue:
            raise OverloadError(
                f"embedding queue full ({self._queued_items} texts waiting, "
                f"limit {self.max_queue}); retry shortly"
            )
        fut: asyncio.Future[np.ndarray] = loop.create_future()
        self._queue.append(_Request(texts, role, fut))
        self._queued_items += len(texts)
        self._kick()
        return await fut

    def _kick(self) -> None:
        if self._queue and not self._busy and (self._drainer is None or self._drainer.done()):
            self._drainer = asyncio.get_running_loop().create_task(self._drain())

    def _take_batch(self) -> list[_Request]:
        role = self._queue[0].role
        batch: list[_Request] = []
        count = 0
        keep: deque[_Request] = deque()
        while self._queue:
            req = self._queue.popleft()
            if req.future.done():  # cancelled by its caller
                self._queued_items -= len(req.texts)
                continue
            if req.role == role and (not batch or count + len(req.texts) <= self.max_items):
                batch.append(req)
                count += len(req.texts)
                self._queued_items -= len(req.texts)
            else:
                keep.append(req)
        self._queue = keep
        return batch

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        self._busy = True
        try:
            while self._queue:
                if self._queued_items < self.max_items and self.max_wait_s > 0:
                    await asyncio.sleep(self.max_wait_s)
                batch = self._take_batch()
                if not batch:
                    continue
                texts = [t for r in batch for t in r.texts]
                self.batched_requests += len(batch)
                try:
                    vecs = await loop.run_in_executor(self._executor, self._encode_sync, texts, batch[0].role)
                except Exception as exc:
                    for r in batch:
                        if not r.future.done():
                            r.future.set_exception(exc)
                    continue
                start = 0
                for r in batch:
                    end = start + len(r.texts)
                    if not r.future.done():
                        r.future.set_result(vecs[start:end])
                    start = end
        finally:
            self._busy = False

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
