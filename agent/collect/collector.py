"""One fetch cycle end to end: fetch sources concurrently, store the outcomes.

Also decides live vs replay: with `offline` set, or when no source could even
connect on a live attempt, the synthetic demo snapshot answers instead (hot
lists we wrote, not recordings) — and the log, /readyz and the topics API say
so plainly. While replaying for want of a network, every cycle first probes
the network and goes back to live fetching as soon as a probe gets an answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from agent.collect.fetching import CircuitBreaker, FetchPolicy, HttpFetcher, SourceOutcome, fetch_all, make_client
from agent.collect.replay import ReplayTransport
from agent.errors import FetchError, ParseError, StoreError
from agent.models import utcnow
from agent.resources import snapshot_dir
from agent.settings import Settings
from agent.sources import Source, build_sources
from agent.store import Store

__all__ = ["SYNTHETIC", "Collector"]

log = logging.getLogger("trendlens.collect")

SYNTHETIC = "synthetic demo snapshot"  # what replayed data is called everywhere it is shown
PROBE_TIMEOUT_S = 3.0


@dataclass
class Collector:
    """Owns the shared HTTP client, the breakers and the live/replay decision."""

    settings: Settings
    store: Store
    sources: Sequence[Source] = ()
    transport: httpx.AsyncBaseTransport | None = None  # the live transport; None = the real network
    fallback_to_replay: bool = True  # replay the synthetic snapshot when no source can even connect
    breakers: dict[str, CircuitBreaker] = field(default_factory=dict)
    replaying: bool = False
    metrics: Any = None  # agent.metrics.Metrics, when running as a service
    # awaited after each stored cycle (the runtime re-indexes topics there)
    listeners: list[Callable[[list[SourceOutcome]], Awaitable[None]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.sources:
            self.sources = build_sources(self.settings)
        fetch = self.settings.fetch
        for s in self.sources:
            self.breakers.setdefault(s.name, CircuitBreaker(fetch.breaker_threshold, fetch.breaker_cooldown_s))
        self.replaying = fetch.offline
        self._http: HttpFetcher | None = None
        self._lock = asyncio.Lock()

    @property
    def replay_reason(self) -> str | None:
        """Why the synthetic snapshot is served, or None while fetching live."""
        if not self.replaying:
            return None
        return "offline mode" if self.settings.fetch.offline else "live fetches failed: network unreachable"

    def _fetcher(self) -> HttpFetcher:
        if self._http is None:
            fetch = self.settings.fetch
            transport = (ReplayTransport(self.sources, snapshot_dir(fetch.snapshot_dir)) if self.replaying
                         else self.transport)
            policy = FetchPolicy.from_options(fetch)
            if self.replaying:
                policy = FetchPolicy(retries=0, timeout_s=5, deadline_s=10, max_body_bytes=policy.max_body_bytes)
            self._http = HttpFetcher(make_client(fetch, transport), policy, replaying=self.replaying)
        return self._http

    async def switch_to_replay(self) -> None:
        await self.aclose()
        self.replaying = True  # the next fetcher replays, and says so to the sources it serves
        for breaker in self.breakers.values():
            breaker.record(True)

    async def switch_to_live(self) -> None:
        await self.aclose()
        self.replaying = False

    async def probe(self) -> bool:
        """Whether the network answers: any HTTP response from a source's endpoint counts."""
        urls: list[str] = []
        for source in self.sources:
            try:
                urls.extend(e.url for e in source.endpoints()[:1])
            except Exception:  # noqa: BLE001 - a source that cannot name its endpoint is just not probed
                continue
        urls = list(dict.fromkeys(urls))[:3]
        if not urls:
            return False
        async with make_client(self.settings.fetch, self.transport) as client:
            async def one(url: str) -> bool:
                try:
                    await client.head(url, timeout=PROBE_TIMEOUT_S)
                except httpx.HTTPError:
                    return False
                return True

            return any(await asyncio.gather(*(one(u) for u in urls)))

    async def cycle(self, names: Sequence[str] | None = None) -> list[SourceOutcome]:
        """Fetch the named sources (all when None) once and store the result atomically."""
        chosen = [s for s in self.sources if names is None or s.name in names]
        async with self._lock:
            if self.replaying and not self.settings.fetch.offline and await self.probe():
                log.warning("network answers again: fetching live data instead of the %s", SYNTHETIC)
                await self.switch_to_live()
            started = utcnow()
            # the start of a cycle is logged as well as its end: a cycle that never ends (a hung
            # upstream, a killed process) is then visible in the log
            log.info("fetch cycle started: %s", ", ".join(source.name for source in chosen))
            outcomes = await fetch_all(chosen, self._fetcher(), self.breakers)
            if not self.replaying and self.fallback_to_replay and _network_unreachable(outcomes):
                log.warning("network unreachable (no source could connect): replaying the %s from %s "
                            "instead of live data", SYNTHETIC, snapshot_dir(self.settings.fetch.snapshot_dir))
                await self.switch_to_replay()
                started = utcnow()
                outcomes = await fetch_all(chosen, self._fetcher(), self.breakers)
            outcomes = await asyncio.to_thread(self._record, outcomes, started)
        for o in outcomes:
            if self.metrics is not None:
                self.metrics.fetches.inc(o.source, o.status)
            if o.ok:
                log.info("%s: %d topics in %.2fs%s", o.source, len(o.topics), o.elapsed_s,
                         f" ({SYNTHETIC})" if self.replaying else "")
            else:
                log.warning("%s", o.error)
        if any(o.ok for o in outcomes):
            for listener in self.listeners:
                await listener(outcomes)
        return outcomes

    def _record(self, outcomes: list[SourceOutcome], started: datetime) -> list[SourceOutcome]:
        """Store the cycle in one transaction; when the store refuses it, each source's rows on their
        own, so one source's rows the store cannot take never drop the others' (blocking)."""
        try:
            self.store.record_cycle(outcomes, started_at=started)
            return outcomes
        except StoreError as exc:
            log.warning("storing the fetch cycle failed (%s); storing each source on its own", exc)
        kept: list[SourceOutcome] = []
        for outcome in outcomes:
            try:
                self.store.record_cycle([outcome], started_at=started)
                kept.append(outcome)
                continue
            except StoreError as exc:
                refused = SourceOutcome(source=outcome.source, elapsed_s=outcome.elapsed_s,
                                        error=ParseError(outcome.source, f"its items could not be stored ({exc})"))
            try:
                self.store.record_cycle([refused], started_at=started)
            except StoreError:
                log.warning("%s: its failure could not be stored either", outcome.source)
            kept.append(refused)
        return kept

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.client.aclose()
            self._http = None


def _network_unreachable(outcomes: Sequence[SourceOutcome]) -> bool:
    tried = [o for o in outcomes if o.error is None or o.error.kind != "disabled"]
    return bool(tried) and all(
        isinstance(o.error, FetchError) and o.error.status is None for o in tried
    )
