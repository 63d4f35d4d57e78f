"""The service's Prometheus metrics, on `prometheus-client`.

Each `Metrics` owns its own registry (tests and the demo build several runtimes in one
process) with the standard process, platform and GC collectors beside our series. The
call sites keep a small surface: `fetches.inc(source, outcome)`, `ranking_seconds.observe(s)`
and `gauge(name, help, fn)` for values read at scrape time.

Where a slow decision spent its time: `decision_timing()` opens one decision's `StageTimes`,
and each stage on its path adds to it with `timed(stage)` (a context variable carries it into
worker threads). The cycle collector's pauses are added as the stage `gc` when one lands inside
a decision, and kept per generation process-wide (`GcPauses`); `LoopStalls` measures how late
the event loop wakes. Every decision's stages go to `trendlens_decision_stage_seconds`.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import prometheus_client
from prometheus_client import (
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client import Counter as _PromCounter
from prometheus_client import Histogram as _PromHistogram
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["Counter", "GcPauses", "add_stage", "Histogram", "LoopStalls", "Metrics", "StageTimes", "decision_timing",
           "gc_pauses", "timed"]

# `*_created` series double every counter and histogram and nothing of ours reads them.
prometheus_client.disable_created_metrics()

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.08, 0.1, 0.25, 0.5, 1.0, 2.5)
# a stage is often well under a millisecond: the tail is read against these
_STAGE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Counter:
    """A labelled counter: `inc(*label_values, amount=1.0)`."""

    def __init__(self, name: str, help: str, labelnames: tuple[str, ...], registry: CollectorRegistry) -> None:
        # prometheus-client appends the `_total` suffix itself.
        self._counter = _PromCounter(name.removesuffix("_total"), help, labelnames, registry=registry)
        self.labelnames = labelnames

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self._counter.labels(*labels).inc(amount)


class Histogram:
    """A histogram, labelled when `labelnames` are given: `observe(value, *label_values)`."""

    def __init__(self, name: str, help: str, registry: CollectorRegistry,
                 buckets: tuple[float, ...] = _BUCKETS, labelnames: tuple[str, ...] = ()) -> None:
        self._histogram = _PromHistogram(name, help, labelnames, buckets=buckets, registry=registry)
        self.labelnames = labelnames

    def observe(self, value: float, *labels: str) -> None:
        (self._histogram.labels(*labels) if labels else self._histogram).observe(value)


class StageTimes:
    """One decision's seconds per stage (`encode`, `rank`, `gate`, `caption`, `store_write`, `gc` ...);
    a stage met twice (two workflows) adds up."""

    __slots__ = ("seconds",)

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def ms(self) -> dict[str, float]:
        """Each stage in milliseconds, as the decision record and the benches print them."""
        return {stage: round(s * 1000, 3) for stage, s in self.seconds.items()}


_current: ContextVar[StageTimes | None] = ContextVar("trendlens_stage_times", default=None)


@contextmanager
def decision_timing() -> Iterator[StageTimes]:
    """Open one decision's `StageTimes`: `timed` blocks under it (and in threads it starts) add to it;
    its whole time is the stage `decision`."""
    times = StageTimes()
    token = _current.set(times)
    started = time.perf_counter()
    try:
        yield times
    finally:
        times.add("decision", time.perf_counter() - started)
        _current.reset(token)


def add_stage(stage: str, seconds: float) -> None:
    """Add `seconds` to the current decision's `stage` (nothing outside a decision)."""
    times = _current.get()
    if times is not None:
        times.add(stage, seconds)


@contextmanager
def timed(stage: str) -> Iterator[None]:
    """Add the block's wall time to the current decision's `stage` (nothing outside a decision)."""
    times = _current.get()
    if times is None:
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        times.add(stage, time.perf_counter() - started)


class GcPauses(Collector):
    """The cycle collector's pauses, per generation, process-wide as the collector is.

    A pause holds every thread, so one that lands inside a decision is that decision's `gc` stage.
    Installed once (`gc_pauses()`) and read by every registry."""

    def __init__(self) -> None:
        self._started = 0.0
        self._buckets = [[0] * (len(_STAGE_BUCKETS) + 1) for _ in range(3)]
        self._sum = [0.0, 0.0, 0.0]
        self.longest = [0.0, 0.0, 0.0]

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        pause = time.perf_counter() - self._started
        generation = info["generation"]
        i = next((n for n, bound in enumerate(_STAGE_BUCKETS) if pause <= bound), len(_STAGE_BUCKETS))
        self._buckets[generation][i] += 1
        self._sum[generation] += pause
        self.longest[generation] = max(self.longest[generation], pause)
        times = _current.get()
        if times is not None:
            times.add("gc", pause)

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily("trendlens_gc_pause_seconds", "Cycle collector pauses by generation",
                                       labels=("generation",))
        for generation in range(3):
            counts = self._buckets[generation]
            cumulative, running = [], 0
            for bound, n in zip((*map(str, _STAGE_BUCKETS), "+Inf"), counts, strict=True):
                running += n
                cumulative.append((bound, running))
            family.add_metric([str(generation)], cumulative, self._sum[generation])
        yield family
        longest = GaugeMetricFamily("trendlens_gc_longest_pause_seconds", "Longest cycle collector pause",
                                    labels=("generation",))
        for generation in range(3):
            longest.add_metric([str(generation)], self.longest[generation])
        yield longest


_gc_pauses: GcPauses | None = None
_gc_lock = threading.Lock()


def gc_pauses() -> GcPauses:
    """The process's one `GcPauses`, its callback installed on first use."""
    global _gc_pauses
    with _gc_lock:
        if _gc_pauses is None:
            _gc_pauses = GcPauses()
            gc.callbacks.append(_gc_pauses.on_gc)
        return _gc_pauses


class LoopStalls:
    """How late the event loop wakes from a short sleep: a stall is the time no task could run.

    `watch()` runs until cancelled (the app's lifespan runs it); every wake-up later than `interval`
    goes to `trendlens_event_loop_lag_seconds`, the longest to `longest_s`."""

    def __init__(self, registry: CollectorRegistry, interval: float = 0.02) -> None:
        self.interval = interval
        self.longest_s = 0.0
        self._lag = _PromHistogram("trendlens_event_loop_lag_seconds", "How late the event loop woke",
                                   buckets=_STAGE_BUCKETS, registry=registry)

    async def watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            self.record(loop.time() - due)

    def record(self, late_s: float) -> None:
        late_s = max(0.0, late_s)
        self._lag.observe(late_s)
        self.longest_s = max(self.longest_s, late_s)


class _Gauges(Collector):
    """Gauges computed when scraped; one that raises is left out instead of failing the scrape."""

    def __init__(self) -> None:
        self.fns: dict[str, tuple[str, Callable[[], float]]] = {}

    def collect(self) -> Iterator[Metric]:
        for name, (help_text, fn) in sorted(self.fns.items()):
            try:
                value = float(fn())
            except Exception:  # noqa: BLE001 - a broken gauge must not break the scrape
                continue
            yield GaugeMetricFamily(name, help_text, value=value)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        for collector in (ProcessCollector, PlatformCollector, GCCollector):
            collector(registry=self.registry)
        self.fetches = Counter("trendlens_fetches_total", "Source fetches by outcome", ("source", "outcome"),
                               self.registry)
        self.decisions = Counter("trendlens_caption_decisions_total", "Caption gate decisions by reason",
                                 ("reason",), self.registry)
        self.requests = Counter("trendlens_http_requests_total", "HTTP requests by route and status",
                                ("route", "status"), self.registry)
        self.ranking_seconds = Histogram("trendlens_ranking_seconds", "Conversation to ranked list latency",
                                         self.registry)
        self.stage_seconds = Histogram("trendlens_decision_stage_seconds",
                                       "One decision's time per stage (decision: the whole; gc: collector pauses)",
                                       self.registry, _STAGE_BUCKETS, ("stage",))
        self.registry.register(gc_pauses())
        self.loop_stalls = LoopStalls(self.registry)
        self._gauges = _Gauges()
        self.registry.register(self._gauges)

        self.gauge("trendlens_event_loop_longest_stall_seconds", "Longest the event loop was late to wake",
                   lambda: self.loop_stalls.longest_s)

    def gauge(self, name: str, help: str, fn: Callable[[], float]) -> None:
        self._gauges.fns[name] = (help, fn)

    def observe_stages(self, times: StageTimes) -> None:
        """One decision's stages into `trendlens_decision_stage_seconds`."""
        for stage, seconds in times.seconds.items():
            self.stage_seconds.observe(seconds, stage)

    def render(self) -> str:
        return generate_latest(self.registry).decode()
