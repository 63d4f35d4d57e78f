"""One utterance, one decision: choosing between MentraOS language streams.

Each `transcription:<lang>` subscription runs its own recogniser, so the same
speech arrives once per language, and every copy but one is the wrong-language
recogniser's guess. The rule, kept deliberately simple and checkable:

1. Copies are grouped as one utterance when their `[startTime, endTime]` spans
   overlap (or, without times, when they arrive within `merge_window_s` of the
   first). A group is decided once every subscribed language has delivered its
   copy, or `merge_window_s` (0.4 s) after the first final, whichever comes first.
   A second final from a language already in the group starts a new utterance.
2. Within a group the copy whose text is written in its own language's script
   wins: Chinese speech gives a zh copy mostly in Han characters (English
   recognisers never write Han); English speech gives a zh copy that is mostly
   Latin, so the en copy wins. "Mostly" is at least half of the letters.
   Languages with their own script (zh, ja, ko) are checked first, in the
   configured order; a Latin-script language is the fallback.
3. Partial transcripts only feed the live loop from the language of the last
   chosen utterance (the session's first language until then): they never
   trigger a decision, and the other recogniser's partials are noise.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..text import HAN, HANGUL, KANA

__all__ = ["Heard", "Transcript", "UtteranceAssembler", "choose_copy", "overlaps", "parse_transcript"]

log = logging.getLogger(__name__)

# A language tag's base → the script its real transcripts are written in.
_SCRIPTS: dict[str, re.Pattern[str]] = {
    "zh": re.compile(rf"[{HAN}]"),
    "ja": re.compile(rf"[{KANA}{HAN}]"),
    "ko": re.compile(rf"[{HANGUL}]"),
}


@dataclass(frozen=True, kw_only=True)
class Transcript:
    """One transcription message from one recogniser."""

    text: str
    is_final: bool
    language: str | None
    start_ms: float | None = None
    end_ms: float | None = None
    speaker_id: str | None = None  # `data.speakerId`, where the cloud diarizes


@dataclass(frozen=True, kw_only=True)
class Heard:
    """What the live loop gets for one chosen utterance on a MentraOS session."""

    session_id: str
    text: str
    is_final: bool
    language: str | None
    profile: str
    speaker_id: str | None = None  # who said it, where the cloud diarizes (recorded with the decision)


def parse_transcript(message: dict[str, Any]) -> Transcript | None:
    """The transcript in a `data_stream` message, or None for anything else."""
    if message.get("type") != "data_stream":
        return None
    stream = str(message.get("streamType", ""))
    data = message.get("data")
    if not (stream == "transcription" or stream.startswith("transcription:")) or not isinstance(data, dict):
        return None
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    language = data.get("transcribeLanguage")
    if not isinstance(language, str) or not language:
        # newer clouds name the language in the stream type
        language = stream.partition(":")[2] or None
    speaker = data.get("speakerId")
    return Transcript(text=text, is_final=bool(data.get("isFinal")), language=language,
                      start_ms=_number(data.get("startTime")), end_ms=_number(data.get("endTime")),
                      speaker_id=str(speaker)[:64] if isinstance(speaker, str | int) and not isinstance(speaker, bool)
                      and str(speaker).strip() else None)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def overlaps(a: Transcript, b: Transcript) -> bool:
    """Whether two copies can be the same speech: overlapping spans, or no spans to compare."""
    if None in (a.start_ms, a.end_ms, b.start_ms, b.end_ms):
        return True
    assert a.start_ms is not None and a.end_ms is not None and b.start_ms is not None and b.end_ms is not None
    return a.start_ms <= b.end_ms and b.start_ms <= a.end_ms


def _base(language: str | None) -> str:
    return (language or "").split("-", 1)[0].lower()


def _share(script: re.Pattern[str], text: str) -> float:
    """The share of `text`'s letters written in `script`."""
    letters = [ch for ch in text if ch.isalnum()]
    return sum(1 for ch in letters if script.match(ch)) / len(letters) if letters else 0.0


def choose_copy(copies: Sequence[Transcript], languages: Sequence[str]) -> Transcript:
    """The copy to believe among one utterance's copies (see the module docstring)."""
    order = {_base(lang): i for i, lang in enumerate(languages)}
    ranked = sorted(copies, key=lambda c: order.get(_base(c.language), len(order)))
    for copy in ranked:
        script = _SCRIPTS.get(_base(copy.language))
        if script is not None and _share(script, copy.text) >= 0.5:
            return copy
    latin = [c for c in ranked if _base(c.language) not in _SCRIPTS]
    return (latin or ranked)[0]


class UtteranceAssembler:
    """One session's transcripts → one `hear(transcript)` per utterance, by the rule above.

    The input side of a MentraOS session: it only decides which copy is heard and when;
    what is heard goes to the live loop through `hear`.
    """

    def __init__(self, hear: Callable[[Transcript], Awaitable[None]], *, languages: Sequence[str],
                 merge_window_s: float, label: str = "") -> None:
        self.hear, self.languages, self.merge_window_s, self.label = hear, tuple(languages), merge_window_s, label
        self.language: str | None = self.languages[0] if self.languages else None  # of the last chosen copy
        self._pending: list[Transcript] = []  # finals of the utterance being decided
        self._flush: asyncio.Task[None] | None = None

    async def feed(self, transcript: Transcript) -> None:
        if not transcript.is_final:
            # partials only help the window; the other recogniser's partials are noise
            if transcript.language in (None, self.language):
                await self.hear(transcript)
            return
        if self._pending and not (overlaps(self._pending[0], transcript)
                                  and transcript.language not in {c.language for c in self._pending}):
            await self._decide()  # a new utterance: the previous one is complete as it is
        self._pending.append(transcript)
        heard = {c.language for c in self._pending}
        if len(self.languages) <= 1 or all(lang in heard for lang in self.languages):
            await self._decide()
        elif self._flush is None:
            self._flush = asyncio.create_task(self._decide_later())

    async def _decide_later(self) -> None:
        await asyncio.sleep(self.merge_window_s)
        self._flush = None  # this task is finishing: _decide must not cancel it
        await self._decide()

    async def _decide(self) -> None:
        """One decision for the pending utterance, from the copy worth believing."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        copies, self._pending = self._pending, []
        if not copies:
            return
        chosen = choose_copy(copies, self.languages)
        if chosen.language is not None:
            self.language = chosen.language
        if len(copies) > 1:
            log.debug("mentra %s: kept the %s copy of one utterance, dropped %s", self.label,
                      chosen.language, [c.language for c in copies if c is not chosen])
        await self.hear(chosen)

    def close(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
