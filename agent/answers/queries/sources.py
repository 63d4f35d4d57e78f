"""Every configured source with its health: what `/v1/sources`, `trendlens sources` and the MCP
resource report."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from agent.sources.base import Source
from agent.store import SourceHealth, Store

__all__ = ["SourceStatus", "source_statuses", "statuses_of"]


@dataclass(frozen=True, kw_only=True)
class SourceStatus:
    name: str
    title: str
    lang: str
    interval_s: float
    enabled: bool
    disabled_reason: str | None
    status: str  # the last fetch's outcome, or "never fetched"
    last_success: str | None
    last_error: str | None
    last_count: int
    consecutive_failures: int

    def public(self) -> dict[str, Any]:
        return asdict(self)


def statuses_of(sources: Iterable[Source], health: Iterable[SourceHealth], *,
                replaying: bool = False) -> list[SourceStatus]:
    """Each of `sources`, in their order, with its health row (or "never fetched"); `replaying`: they
    are fetched from the synthetic snapshot (which needs no credentials)."""
    rows = {h.source: h for h in health}
    out = []
    for source in sources:
        h = rows.get(source.name)
        out.append(SourceStatus(
            name=source.name, title=source.title, lang=source.lang, interval_s=source.interval,
            enabled=source.disabled_reason(replaying=replaying) is None,
            disabled_reason=source.disabled_reason(replaying=replaying),
            status=h.status if h else "never fetched", last_success=h.last_success if h else None,
            last_error=h.last_error if h else None, last_count=h.last_count if h else 0,
            consecutive_failures=h.consecutive_failures if h else 0))
    return out


async def source_statuses(sources: Iterable[Source], store: Store, *, replaying: bool) -> list[SourceStatus]:
    """Each source the running service fetches (the collector's), with the store's health row;
    `replaying`: whether the collector replays a snapshot rather than fetching live."""
    return statuses_of(sources, await asyncio.to_thread(store.health), replaying=replaying)
