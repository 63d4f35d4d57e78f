"""The service's Prometheus metrics, on `prometheus-client`.

Each `Metrics` owns its own registry (tests and the demo build several runtimes in one
process) with the standard process, platform and GC collectors beside our series. The
call sites keep a small surface: `fetches.inc(source, outcome)`, `ranking_seconds.observe(s)`
and `gauge(name, help, fn)` for values read at scrape time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

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
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

__all__ = ["Counter", "Histogram", "Metrics"]

# `*_created` series double every counter and histogram and nothing of ours reads them.
prometheus_client.disable_created_metrics()

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.08, 0.1, 0.25, 0.5, 1.0, 2.5)


class Counter:
    """A labelled counter: `inc(*label_values, amount=1.0)`."""

    def __init__(self, name: str, help: str, labelnames: tuple[str, ...], registry: CollectorRegistry) -> None:
        # prometheus-client appends the `_total` suffix itself.
        self._counter = _PromCounter(name.removesuffix("_total"), help, labelnames, registry=registry)
        self.labelnames = labelnames

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self._counter.labels(*labels).inc(amount)


class Histogram:
    def __init__(self, name: str, help: str, registry: CollectorRegistry,
                 buckets: tuple[float, ...] = _BUCKETS) -> None:
        self._histogram = _PromHistogram(name, help, buckets=buckets, registry=registry)

    def observe(self, value: float) -> None:
        self._histogram.observe(value)


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
        self._gauges = _Gauges()
        self.registry.register(self._gauges)

    def gauge(self, name: str, help: str, fn: Callable[[], float]) -> None:
        self._gauges.fns[name] = (help, fn)

    def render(self) -> str:
        return generate_latest(self.registry).decode()
