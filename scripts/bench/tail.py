"""What the benches of the slowest decision share: the spread to the max, the event loop's longest
stall, the collector's full collections, and which stage the slowest decisions spent their time in.

Imported by `hot_path.py` and `long_conversation.py` beside it; it reads nothing of `agent/`, so the
same bench runs on a tree from before the stage timings (its stage table is then empty).
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterable, Mapping
from typing import Any

from harness import pct

__all__ = ["FullCollections", "LoopWatch", "slowest_stages", "spread"]

STALL_MS = 50.0  # the bound: the event loop never stalls longer


def spread(values: Iterable[float]) -> str:
    """p50 / p90 / p99 / max of latencies in ms, as every bench of the tail prints them."""
    v = list(values)
    return (f"p50 {pct(v, 0.5):.2f} ms, p90 {pct(v, 0.9):.2f} ms, p99 {pct(v, 0.99):.2f} ms, "
            f"max {max(v):.2f} ms")


class LoopWatch:
    """How late the event loop wakes from a `tick` sleep while the block runs: its longest stall and
    how many wake-ups were later than `STALL_MS`."""

    def __init__(self, tick: float = 0.005) -> None:
        self.tick = tick
        self.longest_ms = 0.0
        self.over = 0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LoopWatch:
        self._task = asyncio.create_task(self._watch())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.tick
            await asyncio.sleep(self.tick)
            late = (loop.time() - due) * 1000
            self.longest_ms = max(self.longest_ms, late)
            self.over += late > STALL_MS

    def __str__(self) -> str:
        return f"event loop longest stall {self.longest_ms:.1f} ms ({self.over} over {STALL_MS:.0f} ms)"


class FullCollections:
    """The cycle collector's full (generation 2) collections while the block runs: count and pauses."""

    def __init__(self) -> None:
        self.pauses_ms: list[float] = []
        self.spans: list[tuple[float, float]] = []  # perf_counter start and end of each
        self._started = 0.0

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            ended = time.perf_counter()
            self.pauses_ms.append((ended - self._started) * 1000)
            self.spans.append((self._started, ended))

    def within(self, start: float, end: float) -> float:
        """Milliseconds of full collections inside [start, end] (perf_counter seconds)."""
        return 1000 * sum(max(0.0, min(end, b) - max(start, a)) for a, b in self.spans)

    def in_slowest(self, requests: list[tuple[float, float]], share: float = 0.01) -> str:
        """How much of the slowest `share` of `requests` (perf_counter start, end) was a full collection."""
        slowest = sorted(requests, key=lambda r: r[1] - r[0])[-max(1, round(share * len(requests))):]
        held = [self.within(a, b) for a, b in slowest]
        total = 1000 * sum(b - a for a, b in slowest)
        return (f"the slowest {len(slowest)}: {sum(h > 0 for h in held)} met a full collection, "
                f"{sum(held):.0f} of their {total:.0f} ms")

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self._on_gc)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._on_gc)

    def __str__(self) -> str:
        longest = max(self.pauses_ms, default=0.0)
        return (f"full collections {len(self.pauses_ms)}, {sum(self.pauses_ms):.0f} ms in all, "
                f"longest {longest:.1f} ms")


def slowest_stages(stages: list[Mapping[str, float]], share: float = 0.01) -> str:
    """Each stage's p50 / p99 / max over every decision, and its mean in the slowest `share` of them
    (by the stage `decision`): the stage whose mean there is largest owns the tail."""
    stages = [s for s in stages if "decision" in s]
    if not stages:
        return "(no stage timings: a tree from before them)"
    names = sorted({k for s in stages for k in s}, key=lambda k: (k == "decision", k))
    slowest = sorted(stages, key=lambda s: s["decision"])[-max(1, round(share * len(stages))):]
    lines = [f"| stage (ms) | p50 | p99 | max | mean in the slowest {len(slowest)} |", "|---|---|---|---|---|"]
    for name in names:
        every = [s.get(name, 0.0) for s in stages]
        tail = sum(s.get(name, 0.0) for s in slowest) / len(slowest)
        lines.append(f"| {name} | {pct(every, 0.5):.2f} | {pct(every, 0.99):.2f} | {max(every):.2f} | {tail:.2f} |")
    return "\n".join(lines)
