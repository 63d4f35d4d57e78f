"""Back-pressure for `POST /v1/topics`: topics ingested but not yet indexed are bounded.

A request is admitted while the topics waiting to be indexed, its own included, fit the
capacity (an idle service admits any one request, up to the per-request cap). Past it the
client gets 429 with a `Retry-After` worked out from the indexing rate seen so far, so a
vendor's loader slows to what the embedder keeps up with instead of piling up a backlog.
"""

from __future__ import annotations

import math
import time

from .errors import ApiError

__all__ = ["IngestQueue"]


class IngestQueue:
    def __init__(self, capacity: int, *, rate_per_s: float = 70.0) -> None:
        # 70 titles/s: the default model on two CPU cores, until a real rate is measured
        self.capacity = capacity
        self.rate_per_s = rate_per_s
        self.pending = 0

    def retry_after_s(self) -> int:
        return max(1, min(600, math.ceil(self.pending / max(self.rate_per_s, 1e-3))))

    def admit(self, count: int) -> float:
        """Take `count` topics in, or raise 429; returns the admission time for `done`."""
        if self.pending and self.pending + count > self.capacity:
            wait = self.retry_after_s()
            raise ApiError(429, f"{self.pending} topics are waiting to be indexed (capacity {self.capacity}); "
                                f"retry in {wait} s", code="ingest_queue_full",
                           headers={"Retry-After": str(wait)})
        self.pending += count
        return time.monotonic()

    def done(self, count: int, admitted: float, *, indexed: bool = True) -> None:
        """`count` topics left the queue; when indexed, the time they took updates the rate."""
        self.pending = max(0, self.pending - count)
        elapsed = time.monotonic() - admitted
        if indexed and elapsed > 0.5:  # short requests say little about the rate
            self.rate_per_s = 0.7 * self.rate_per_s + 0.3 * (count / elapsed)
