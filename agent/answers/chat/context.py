"""Earlier turns of a conversation, and the topics an earlier answer named.

Clients resend the conversation (OpenAI `messages`, Lingzhu `message[]`), so the
service keeps no chat state: the topics of an earlier answer are found again by
their titles in its text, in the order it named them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from agent.answers.chat.facts import short_title
from agent.answers.chat.search import title_matches
from agent.models import Topic

__all__ = ["Turn", "mentioned_topics", "resolve_follow_up"]


@dataclass(frozen=True, kw_only=True)
class Turn:
    role: Literal["user", "assistant"]
    text: str


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def mentioned_topics(text: str, topics: Iterable[Topic]) -> list[Topic]:
    """Topics whose titles appear in `text`, in order of appearance; a title inside a longer one is not counted.

    A title said on the glasses may be its first clause only (`short_title`): that counts too.
    """
    folded = _fold(text)
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Topic]] = []
    seen_titles: set[str] = set()
    for t in sorted(topics, key=lambda t: -len(t.title)):
        title = _fold(t.title)
        if len(title) < 2 or title in seen_titles:
            continue
        at = folded.find(title)
        if at < 0:
            title = _fold(short_title(t.title).rstrip("。.！!？?…，,"))
            at = folded.find(title) if len(title) >= 4 else -1
        if at < 0:
            continue
        end = at + len(title)
        if any(a < end and at < b for a, b in taken):
            continue
        taken.append((at, end))
        seen_titles.add(title)
        found.append((at, t))
    found.sort(key=lambda pt: pt[0])
    return [t for _, t in found]


def resolve_follow_up(history: Sequence[Turn], topics: Sequence[Topic], *, position: int | None,
                      words: str) -> Topic | None:
    """The topic a follow-up points at: the Nth of the last answer that named any, or the one matching `words`."""
    for turn in reversed(history):
        if turn.role != "assistant":
            continue
        named = mentioned_topics(turn.text, topics)
        if not named:
            continue
        if position is not None:
            if position == -1:
                return named[-1]
            return named[position - 1] if 0 < position <= len(named) else None
        if not words:
            return named[0]
        matching = title_matches(words, named)
        if matching:
            return matching[0]
    if words:
        # "那个火灾" may point at something the asker said, not at an answer
        for turn in reversed(history):
            matching = title_matches(words, mentioned_topics(turn.text, topics))
            if matching:
                return matching[0]
    return None
