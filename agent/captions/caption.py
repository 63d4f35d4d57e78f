"""`Caption`: the short, fitted text pushed to a pair of glasses."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agent.text import is_han

__all__ = ["Caption", "reading_time"]

#: A comfortable HUD line holds 10-12 CJK or 30-35 Latin characters, about 6 words, and people read
#: about 200 words a minute on a HUD (../GLASSES.md): 1.8 s for such a line.
LINE_S = 1.8
CJK_PER_LINE = 11.0
LATIN_PER_LINE = 32.5


def reading_time(lines: tuple[str, ...] | list[str]) -> float:
    """Seconds to read `lines` at a HUD's reading pace: each character a share of a comfortable line
    (a wide one, Han or kana, 1/11; any other 1/32.5), at 1.8 s a line."""
    units = sum(1 / CJK_PER_LINE if is_han(ch) or ord(ch) >= 0x3000 else 1 / LATIN_PER_LINE
                for line in lines for ch in line if not ch.isspace())
    return units * LINE_S


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
    # how many of `lines` are the title and its meta line: what the wearer must read to know what it is
    headline: int = 0

    @property
    def expires_at(self) -> float:
        return self.created_at + self.ttl_ms / 1000

    def expired(self, now: float | None = None) -> bool:
        """True once the caption has outlived its TTL: showing it then would be stale."""
        return (time.time() if now is None else now) >= self.expires_at

    @property
    def read_s(self) -> float:
        """Seconds to read the headline (`reading_time` of its lines); of every line when the headline
        is not known (a caption another instance published before it said)."""
        return reading_time(self.lines[:self.headline] if self.headline else self.lines)

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
            "headline": self.headline,
        }

    @classmethod
    def from_public(cls, data: dict[str, Any]) -> Caption:
        """The caption `to_public` described (e.g. as another instance published it)."""
        return cls(topic_id=str(data["topic_id"]), title=str(data["title"]), text=str(data["text"]),
                   lines=tuple(str(line) for line in data["lines"]), score=float(data["score"]),
                   source=str(data["source"]), ttl_ms=int(data["ttl_ms"]), profile=str(data["profile"]),
                   created_at=float(data["created_at"]), session_id=data.get("session_id"),
                   headline=int(data.get("headline", 0)))
