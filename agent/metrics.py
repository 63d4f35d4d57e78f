"""Prometheus text-format metrics without a client library: counters, gauges, one histogram.

Small on purpose: the service exposes a handful of series and needs no registry
magic, multiprocess mode or push gateway.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Counter", "Histogram", "Metrics"]


def _labels(names: tuple[str, ...], values: tuple[str, ...]) -> str:
    if not names:
        return ""
    inner = ",".join(f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True))
    return "{" + inner + "}"


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@dataclass
class Counter:
    name: str
    help: str
    labelnames: tuple[str, ...] = ()
    values: dict[tuple[str, ...], float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        with self._lock:
            self.values[labels] = self.values.get(labels, 0.0) + amount

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} counter"]
        for labels, value in sorted(self.values.items()):
            lines.append(f"{self.name}{_labels(self.labelnames, labels)} {value:g}")
        return lines


@dataclass
class Histogram:
    name: str
    help: str
    buckets: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.08, 0.1, 0.25, 0.5, 1.0, 2.5)
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    n: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.buckets)

    def observe(self, value: float) -> None:
        with self._lock:
            self.n += 1
            self.total += value
            for i, bound in enumerate(self.buckets):
                if value <= bound:
                    self.counts[i] += 1

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for bound, count in zip(self.buckets, self.counts, strict=True):
            lines.append(f'{self.name}_bucket{{le="{bound:g}"}} {count}')
        lines += [f'{self.name}_bucket{{le="+Inf"}} {self.n}', f"{self.name}_sum {self.total:.6f}",
                  f"{self.name}_count {self.n}"]
        return lines


class Metrics:
    def __init__(self) -> None:
        self.fetches = Counter("trendlens_fetches_total", "Source fetches by outcome", ("source", "outcome"))
        self.decisions = Counter("trendlens_caption_decisions_total", "Caption gate decisions by reason",
                                 ("reason",))
        self.requests = Counter("trendlens_http_requests_total", "HTTP requests by route and status",
                                ("route", "status"))
        self.ranking_seconds = Histogram("trendlens_ranking_seconds", "Conversation to ranked list latency")
        self.gauges: dict[str, tuple[str, Callable[[], float]]] = {}

    def gauge(self, name: str, help: str, fn: Callable[[], float]) -> None:
        self.gauges[name] = (help, fn)

    def render(self) -> str:
        lines: list[str] = []
        for metric in (self.fetches, self.decisions, self.requests, self.ranking_seconds):
            lines += metric.render()
        for name, (help_text, fn) in sorted(self.gauges.items()):
            try:
                value = float(fn())
            except Exception:  # noqa: BLE001 - a broken gauge must not break the scrape
                continue
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge", f"{name} {value:g}"]
        return "\n".join(lines) + "\n"
