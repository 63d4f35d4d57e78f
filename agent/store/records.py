"""What the store hands out: topics with their history, heat points, source health."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ..models import Topic, Trend

__all__ = ["DataVersion", "HeatPoint", "SourceHealth", "StoredTopic", "current_order"]


@dataclass(frozen=True, kw_only=True)
class SourceHealth:
    source: str
    last_attempt: str | None
    last_success: str | None
    last_count: int
    last_error: str | None
    last_error_kind: str | None
    last_error_at: str | None
    consecutive_failures: int
    last_elapsed_s: float | None

    @property
    def status(self) -> str:
        if self.last_attempt is None:
            return "never fetched"
        return "ok" if self.consecutive_failures == 0 else (self.last_error_kind or "error")


@dataclass(frozen=True, kw_only=True)
class HeatPoint:
    observed_at: str
    rank: int | None
    heat: float | None


@dataclass(frozen=True, kw_only=True)
class StoredTopic:
    """A topic as stored, with what its history says about it."""

    topic: Topic
    first_seen: str
    last_seen: str
    velocity: float | None  # heat change per hour between the last two observations
    observations: int

    @property
    def is_new(self) -> bool:
        return self.observations <= 1

    def public(self) -> dict[str, Any]:
        data = self.topic.public()
        data.update(first_seen=self.first_seen, last_seen=self.last_seen, velocity=self.velocity,
                    trend=self.trend)
        return data

    @property
    def trend(self) -> Trend:
        if self.is_new:
            return "new"
        if self.velocity is None or abs(self.velocity) < 1e-9:
            return "steady"
        return "rising" if self.velocity > 0 else "falling"


class DataVersion(NamedTuple):
    """What the store holds, told in three numbers (`Store.data_version`): equal versions, equal data."""

    cycles: int  # fetch cycles and ingests held
    newest: int  # the newest one's id
    prunes: int  # prunes that removed rows


def current_order(stored: StoredTopic) -> tuple[bool, float, bool, int, str]:
    """The order `Store.current` hands topics out in: hottest first, then by rank (none first), then by id."""
    topic = stored.topic
    heat, rank = topic.heat, topic.rank
    return heat is None, -heat if heat is not None else 0.0, rank is not None, rank or 0, topic.id
