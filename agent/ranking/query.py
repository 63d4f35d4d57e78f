"""`RankQuery`: one ranking request of the service, as one value from the caller to the ranker.

The live loop's rank step, chat search, the glance preview and `/v1/topics` each say what they
want in one of these; the topic index hands it to the ranker. Its defaults are the service's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .window import ConversationWindow

__all__ = ["RankQuery"]


@dataclass(frozen=True, kw_only=True)
class RankQuery:
    text: str | ConversationWindow  # one line, or the recent conversation (newest weighted most)
    top_k: int = 5  # results, one per story
    prior: bool = True  # favour hot and rising topics a little
    mmr: bool = True  # diversify the results
    exclude: frozenset[str] = frozenset()  # topic ids never returned (stories shown moments ago)
    gate: bool = False  # drop what falls below the relevance bar
    gate_offset: float = 0.0  # moves that bar (a session's frequency setting)
    latest: str | None = None  # the newest utterance alone ...
    latest_top_k: int = 0  # ... among whose this many best matches a result must also be (0 = off)
