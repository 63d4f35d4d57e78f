"""What the lists held over a span of time: every topic observed in it, with its best place and peak heat.

The kept history (the `observations` of each fetch cycle, kept for the retention period) read for
the MCP tools that search it and compare two periods (agent/answers/queries/history.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from .base import Store

__all__ = ["SeenTopic", "seen_between"]


@dataclass(frozen=True, kw_only=True)
class SeenTopic:
    id: str
    source: str
    title: str
    url: str | None
    lang: str
    best_rank: int | None  # its best place on its list within the span
    peak_heat: float | None
    first_at: str  # its first and last observation within the span
    last_at: str
    seen: int  # how many fetch cycles listed it within the span


def _stamp(dt: datetime) -> str:
    # the store writes observation times as UTC ISO 8601 with microseconds: compared as text
    return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).astimezone(UTC).isoformat(timespec="microseconds")


def seen_between(store: Store, since: datetime, until: datetime, *, limit: int = 20_000) -> list[SeenTopic]:
    """Every topic some fetch cycle listed in [since, until), best placed first."""
    rows = store.query(
        "SELECT t.id, t.source, t.title, t.url, t.lang, MIN(o.rank) AS best_rank, MAX(o.heat) AS peak_heat, "
        "MIN(o.observed_at) AS first_at, MAX(o.observed_at) AS last_at, COUNT(*) AS seen "
        "FROM observations o JOIN topics t ON t.id = o.topic_id "
        "WHERE o.observed_at >= ? AND o.observed_at < ? "
        "GROUP BY t.id, t.source, t.title, t.url, t.lang "
        "ORDER BY COALESCE(MIN(o.rank), 1000000), t.id LIMIT ?",
        (_stamp(since), _stamp(until), limit))
    return [SeenTopic(id=r["id"], source=r["source"], title=r["title"], url=r["url"], lang=r["lang"],
                      best_rank=r["best_rank"], peak_heat=r["peak_heat"], first_at=r["first_at"],
                      last_at=r["last_at"], seen=int(r["seen"])) for r in rows]
