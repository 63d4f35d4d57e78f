"""The conversation window: the last few utterances heard, newest weighted most."""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass

from ..models import detect_lang
from ..text import MAX_TEXT_CHARS, is_han

__all__ = ["ConversationWindow", "Utterance", "sentence_limit", "truncate_text"]

log = logging.getLogger(__name__)

#: Default cap on the characters of conversation the ranker looks at (≈ a minute of speech).
#: A recogniser's piece that ends no sentence, followed by the next within this many seconds, is one
#: sentence cut at a pause by the endpointer (a pause inside a sentence is well under this).
JOIN_S = 2.0
#: The longest sentence joining makes, per language, in characters. Each holds every line of the
#: development sets whole as the simulated recogniser writes it (harness/asr.py: Chinese
#: mentions at most 50 characters, everyday talk 37; English mentions 256, talk 166), with room
#: for a slower speaker; beyond it a run of pieces is a run of talk, not one sentence. Both are
#: about 60-70 model tokens, so the encode a decision waits for costs the same at line 300 as at
#: line 3 (docs/relevance.md, "Joining stops at one sentence").
MAX_SENTENCE_CHARS: dict[str, int] = {"zh": 64, "ja": 64}
MAX_SENTENCE_CHARS_OTHER = 320
#: The most pieces one sentence is joined from: the simulated recogniser cuts a line once (two
#: pieces); an endpointer that cuts at shorter pauses may cut it three times.
MAX_PIECES = 4
#: What ends a sentence in written text; a recogniser writes none of them.
_SENTENCE_END = tuple("。！？!?.…")


def truncate_text(text: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Keep the last `max_chars` characters (the most recent speech), logging a warning if cut."""
    if len(text) <= max_chars:
        return text
    log.warning("conversation text of %d characters truncated to the last %d", len(text), max_chars)
    return text[-max_chars:]


def _joined(before: str, after: str) -> str:
    """Two pieces of one sentence: Chinese runs on without a space, other words keep one."""
    if after.startswith(before):  # the piece said again and continued (a partial, then its final)
        return after
    cjk = is_han(before[-1]) and is_han(after[0])
    return before + ("" if cjk else " ") + after


@dataclass(frozen=True)
class Utterance:
    text: str
    ts: float
    # the recogniser's pieces joined into it; state shared between instances keeps text and time
    # only, so there a sentence counts from 1 again and the character bound alone holds it
    pieces: int = 1
    # the characters at its end that are a partial transcript: the recogniser's words so far of a piece,
    # which its next partial or its final says again, longer (0: the text is final)
    partial: int = 0


def sentence_limit(text: str) -> int:
    """The most characters a sentence in `text`'s language is joined up to (`MAX_SENTENCE_CHARS`)."""
    return MAX_SENTENCE_CHARS.get(detect_lang(text), MAX_SENTENCE_CHARS_OTHER)


class ConversationWindow:
    """Recent utterances with timestamps; older ones fade with a half-life and fall out.

    `weights()` gives each kept utterance a recency weight in (0, 1]: the newest is 1,
    one `half_life_s` older is 0.5, and position decays by `position_decay` per
    utterance as well (speech-to-text timestamps are often coarse).

    A recogniser cuts a long sentence at a pause and sends each piece as its own utterance,
    with no punctuation. Encoded apart, the halves of one sentence each say less than the whole
    and their recency-weighted mean sits closer to everything than one line does, so a piece
    that ends no sentence and is followed within `join_s` seconds by the next is joined with it
    into one utterance: the window holds sentences, as the gate was calibrated on. Joining stops
    at one sentence's length (`max_pieces` pieces, `sentence_limit` characters): at a table where
    nobody's recogniser writes punctuation every piece follows the last within `join_s`, and an
    unbounded join would make each decision encode the whole run of talk again.
    """

    def __init__(
        self,
        *,
        max_utterances: int = 8,
        max_age_s: float = 180.0,
        half_life_s: float = 45.0,
        position_decay: float = 0.85,
        max_chars: int = MAX_TEXT_CHARS,
        join_s: float = JOIN_S,
        max_pieces: int = MAX_PIECES,
    ) -> None:
        self.max_age_s = max_age_s
        self.join_s = join_s
        self.max_pieces = max_pieces
        self.half_life_s = half_life_s
        self.position_decay = position_decay
        self.max_chars = max_chars
        self._items: deque[Utterance] = deque(maxlen=max_utterances)

    @classmethod
    def from_text(cls, text: str, *, max_chars: int = MAX_TEXT_CHARS) -> ConversationWindow:
        """A window holding `text` as one utterance (the CLI's conversation window)."""
        win = cls(max_chars=max_chars)
        win.add(text)
        return win

    def add(self, text: str, ts: float | None = None, *, partial: bool = False) -> bool:
        """One utterance heard; `partial`: a recogniser's words so far of a piece, which its next partial
        or final replaces (a continuation's partials are not pieces of their own). Whether it went on
        with the newest utterance (its rest, or the same piece said again) rather than starting one."""
        text = " ".join(str(text).split())
        if not text:
            return False
        ts = time.time() if ts is None else float(ts)
        last = self._items[-1] if self._items else None
        pieces, piece = 1, text
        if last is not None and last.partial and 0.0 <= ts - last.ts <= self.join_s:
            self._items.pop()  # the same piece, said again: longer, or final
            head = last.text[:len(last.text) - last.partial].rstrip()
            text, pieces = (_joined(head, text) if head else text), last.pieces
        elif last is not None and self._continues(last, text, ts):
            joined = _joined(last.text, text)
            if joined == text:  # a partial, then its longer final: the recogniser's own utterance
                self._items.pop()
                pieces = last.pieces
            elif last.pieces < self.max_pieces and len(joined) <= sentence_limit(joined):
                self._items.pop()  # the rest of the same sentence
                text, pieces = joined, last.pieces + 1
        went_on = last is not None and (not self._items or self._items[-1] is not last)  # popped: it went on
        text = truncate_text(text, self.max_chars)
        self._items.append(Utterance(text, ts, pieces, min(len(piece), len(text)) if partial else 0))
        return went_on

    def _continues(self, last: Utterance, text: str, ts: float) -> bool:
        """Whether `text` is the rest of `last`'s sentence: soon after it, no sentence end between,
        and in the same language (a switch of language starts a new sentence)."""
        if text == last.text or not 0.0 <= ts - last.ts <= self.join_s or last.text.endswith(_SENTENCE_END):
            return False  # the same line again is said again, not continued
        return len({detect_lang(last.text), detect_lang(text)} - {"other"}) <= 1

    def clear(self) -> None:
        self._items.clear()

    def _live(self, now: float | None) -> list[Utterance]:
        if not self._items:
            return []
        now = max(u.ts for u in self._items) if now is None else now
        return [u for u in self._items if now - u.ts <= self.max_age_s]

    def utterances(self, now: float | None = None) -> list[Utterance]:
        return self._live(now)

    def open_sentence(self) -> tuple[bool, bool]:
        """(whether the newest utterance was joined from a recogniser's pieces, whether the next piece may
        still continue it: it ends no sentence and is under the join's bounds). The live gate reads both
        to decide a recogniser's sentence once it is whole (`SessionGate.heard_piece`)."""
        if not self._items:
            return False, False
        last = self._items[-1]
        more = (not last.text.endswith(_SENTENCE_END) and last.pieces < self.max_pieces
                and len(last.text) < sentence_limit(last.text))
        return last.pieces > 1, more

    def newest(self) -> str:
        """The newest utterance (with the pieces of its sentence said before it), "" when empty."""
        return self._items[-1].text if self._items else ""

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
