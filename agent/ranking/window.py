"""The conversation window: the last few utterances heard, newest weighted most."""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass

__all__ = ["ConversationWindow", "Utterance", "truncate_text"]

log = logging.getLogger(__name__)

#: Default cap on the characters of conversation the ranker looks at (≈ a minute of speech).
MAX_CHARS = 2000


def truncate_text(text: str, max_chars: int = MAX_CHARS) -> str:
    """Keep the last `max_chars` characters (the most recent speech), logging a warning if cut."""
    if len(text) <= max_chars:
        return text
    log.warning("conversation text of %d characters truncated to the last %d", len(text), max_chars)
    return text[-max_chars:]


@dataclass(frozen=True)
class Utterance:
    text: str
    ts: float


class ConversationWindow:
    """Recent utterances with timestamps; older ones fade with a half-life and fall out.

    `weights()` gives each kept utterance a recency weight in (0, 1]: the newest is 1,
    one `half_life_s` older is 0.5, and position decays by `position_decay` per
    utterance as well (speech-to-text timestamps are often coarse).
    """

    def __init__(
        self,
        *,
        max_utterances: int = 8,
        max_age_s: float = 180.0,
        half_life_s: float = 45.0,
        position_decay: float = 0.85,
        max_chars: int = MAX_CHARS,
    ) -> None:
        self.max_age_s = max_age_s
        self.half_life_s = half_life_s
        self.position_decay = position_decay
        self.max_chars = max_chars
        self._items: deque[Utterance] = deque(maxlen=max_utterances)

    @classmethod
    def from_text(cls, text: str, *, max_chars: int = MAX_CHARS) -> ConversationWindow:
        """A window holding `text` as one utterance (the CLI's conversation window)."""
        win = cls(max_chars=max_chars)
        win.add(text)
        return win

    def add(self, text: str, ts: float | None = None) -> None:
        text = " ".join(str(text).split())
        if not text:
            return
        text = truncate_text(text, self.max_chars)
        self._items.append(Utterance(text, time.time() if ts is None else float(ts)))

    def clear(self) -> None:
        self._items.clear()

    def _live(self, now: float | None) -> list[Utterance]:
        if not self._items:
            return []
        now = max(u.ts for u in self._items) if now is None else now
        return [u for u in self._items if now - u.ts <= self.max_age_s]

    def utterances(self, now: float | None = None) -> list[Utterance]:
        return self._live(now)

    def weights(self, now: float | None = None) -> list[tuple[str, float]]:
        items = self._live(now)
        if not items:
            return []
        ref = max(u.ts for u in items) if now is None else now
        n = len(items)
        out = []
        for i, u in enumerate(items):
            age = max(0.0, ref - u.ts)
            w = 0.5 ** (age / self.half_life_s) * self.position_decay ** (n - 1 - i)
            out.append((u.text, float(w)))
        return out

    def text(self, now: float | None = None) -> str:
        """The kept utterances joined oldest→newest, cut to `max_chars` from the end."""
        joined = " ".join(u.text for u in self._live(now))
        return joined[-self.max_chars :]

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)
