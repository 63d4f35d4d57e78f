"""`Caption`: the short, fitted text pushed to a pair of glasses."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Caption"]


@dataclass(frozen=True, kw_only=True)
class Caption:
    """A caption already fitted to one display profile; `text` is `lines` joined by newlines."""

    topic_id: str
    title: str
    text: str
    lines: tuple[str, ...]
    score: float
    source: str  # platform name(s) joined by "+", e.g. "weibo+douyin"
    ttl_ms: int
    profile: str
    created_at: float = field(default_factory=time.time)  # epoch seconds
    session_id: str | None = None

    @property
    def expires_at(self) -> float:
        return self.created_at + self.ttl_ms / 1000

    def expired(self, now: float | None = None) -> bool:
        """True once the caption has outlived its TTL: showing it then would be stale."""
        return (time.time() if now is None else now) >= self.expires_at

    def to_public(self) -> dict[str, Any]:
        """The JSON shape sent to HUDs, webhooks and the API."""
        return {
            "topic_id": self.topic_id,
            "title": self.title,
            "text": self.text,
            "lines": list(self.lines),
            "score": self.score,
            "source": self.source,
            "ttl_ms": self.ttl_ms,
            "profile": self.profile,
            "created_at": self.created_at,
            "session_id": self.session_id,
        }

    @classmethod
    def from_public(cls, data: dict[str, Any]) -> Caption:
        """The caption `to_public` described (e.g. as another instance published it)."""
        return cls(topic_id=str(data["topic_id"]), title=str(data["title"]), text=str(data["text"]),
                   lines=tuple(str(line) for line in data["lines"]), score=float(data["score"]),
                   source=str(data["source"]), ttl_ms=int(data["ttl_ms"]), profile=str(data["profile"]),
                   created_at=float(data["created_at"]), session_id=data.get("session_id"))
