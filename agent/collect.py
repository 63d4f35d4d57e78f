"""One fetch cycle end to end: fetch sources concurrently, store the outcomes.

Also decides live vs replay: with `offline` set, or when no source could even
connect on a live attempt, the recorded fixtures answer instead — and the log
says so plainly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from .errors import FetchError
from .fetching import CircuitBreaker, FetchPolicy, HttpFetcher, SourceOutcome, fetch_all, make_client
from .models import utcnow
from .replay import ReplayTransport
from .settings import Settings
from .sources import Source, build_sources
from .store import Store

__all__ = ["Collector"]

log = logging.getLogger("trendlens.collect")


@dataclass
class Collector:
    """Owns the shared HTTP client, the breakers and the live/replay decision."""

    settings: Settings
    store: Store
    sources: Sequence[Source] = ()
    transport: httpx.AsyncBaseTransport | None = None  # the live transport; None = the real network
    fallback_to_replay: bool = True  # replay fixtures when no source can even connect
    breakers: dict[str, CircuitBreaker] = field(default_factory=dict)
    replaying: bool = False
    metrics: Any = None  # agent.metrics.Metrics, when running as a service
    # awaited after each stored cycle (the runtime re-indexes topics there)
    listeners: list[Callable[[list[SourceOutcome]], Awaitable[None]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.sources:
            self.sources = build_sources(self.settings)
        for s in self.sources:
            self.breakers.setdefault(s.name, CircuitBreaker(self.settings.breaker_threshold,
                                                            self.settings.breaker_cooldown_s))
        self.replaying = self.settings.offline
        self._http: HttpFetcher | None = None
        self._lock = asyncio.Lock()

    def _fetcher(self) -> HttpFetcher:
        if self._http is None:
            transport = (ReplayTransport(self.sources, self.settings.fixtures_dir) if self.replaying
                         else self.transport)
            policy = FetchPolicy.from_settings(self.settings)
            if self.replaying:
                policy = FetchPolicy(retries=0, timeout_s=5, deadline_s=10, max_body_bytes=policy.max_body_bytes)
            self._http = HttpFetcher(make_client(self.settings, transport), policy)
        return self._http

    async def switch_to_replay(self) -> None:
        await self.aclose()
        self.replaying = True
        # sources see offline mode too (e.g. Reddit needs no credentials to replay its fixture)
        for source in self.sources:
            source.settings = source.settings.model_copy(update={"offline": True})
        for breaker in self.breakers.values():
            breaker.record(True)

    async def cycle(self, names: Sequence[str] | None = None) -> list[SourceOutcome]:
        """Fetch the named sources (all when None) once and store the result atomically."""
        chosen = [s for s in self.sources if names is None or s.name in names]
        async with self._lock:
            started = utcnow()
            outcomes = await fetch_all(chosen, self._fetcher(), self.breakers)
            if not self.replaying and self.fallback_to_replay and _network_unreachable(outcomes):
                log.warning("network unreachable (no source could connect): replaying recorded fixtures "
                            "from %s instead of live data", self.settings.fixtures_dir)
                await self.switch_to_replay()
                started = utcnow()
                outcomes = await fetch_all(chosen, self._fetcher(), self.breakers)
            await asyncio.to_thread(self.store.record_cycle, outcomes, started_at=started)
        for o in outcomes:
            if self.metrics is not None:
                self.metrics.fetches.inc(o.source, o.status)
            if o.ok:
                log.info("%s: %d topics in %.2fs%s", o.source, len(o.topics), o.elapsed_s,
                         " (replayed)" if self.replaying else "")
            else:
                log.warning("%s", o.error)
        if any(o.ok for o in outcomes):
            for listener in self.listeners:
                await listener(outcomes)
        return outcomes

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.client.aclose()
            self._http = None


def _network_unreachable(outcomes: Sequence[SourceOutcome]) -> bool:
    tried = [o for o in outcomes if o.error is None or o.error.kind != "disabled"]
    return bool(tried) and all(
        isinstance(o.error, FetchError) and o.error.status is None for o in tried
    )
