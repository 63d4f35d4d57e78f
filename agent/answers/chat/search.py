"""Finding the topics a question is about: the chat's only call into the ranker.

Kept in one place so the chat follows whatever the ranker's public entry point is.
A story named by its own words ("台风贝碧嘉登陆上海是怎么回事") is found by
its title first; the ranker answers everything less literal.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from agent.models import Topic
from agent.ranking.lexical import tokenize
from agent.ranking.query import RankQuery

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

__all__ = ["find_story", "relevant", "title_matches"]


async def relevant(deps: ChatDeps, query: str, *, top_k: int) -> list[Topic]:
    """Topics that pass the one relevance gate for `query`, best first, one per story."""
    ranked = await deps.index.rank(RankQuery(text=query, top_k=top_k, gate=True))
    return [r.topic for r in ranked]


def _norm(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def title_matches(words: str, topics: list[Topic]) -> list[Topic]:
    """Topics whose title holds these words (or the words hold the title), then the best word overlap."""
    key = _norm(words)
    if not key:
        return []
    exact = [t for t in topics if key in _norm(t.title) or (len(_norm(t.title)) >= 4 and _norm(t.title) in key)]
    if exact:
        return exact
    wanted = set(tokenize(words))
    if not wanted:
        return []
    scored = []
    for t in topics:
        have = set(tokenize(t.title))
        if have:
            overlap = len(wanted & have) / min(len(wanted), len(have))
            if overlap >= 0.5:
                scored.append((overlap, t))
    scored.sort(key=lambda st: -st[0])
    return [t for _, t in scored]


async def find_story(deps: ChatDeps, subject: str) -> Topic | None:
    """The current topic a story question names, or None when nothing matches well enough."""
    current = [s.topic for s in deps.index.stored.values()]
    literal = title_matches(subject, current)
    if literal:
        # the best-placed of the matching items leads: a lower rank number is a bigger story
        return min(literal, key=lambda t: (t.rank or 10**6, -(t.heat or 0)))
    found = await relevant(deps, subject, top_k=1)
    return found[0] if found else None
