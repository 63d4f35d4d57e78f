"""One story, found by the words of its title, by its place on a list, or by its id: where it is
listed, how its heat moves and when it first appeared (`chat.facts.Fact`, with the heat history),
and the one answer to "what is this story" (`told`: `story_answer.story_answer`)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..chat.facts import Fact, gather
from ..chat.search import find_story
from ..models import Topic
from ..story_answer import StoryAnswer, story_answer

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["story_about", "story_at", "story_by_id", "told"]


async def told(runtime: Runtime, topic: Topic, *, asked: bool = False) -> StoryAnswer:
    """The whole story `topic` belongs to, as the chat, Lingzhu and the MCP `story` tool tell it:
    every platform with its rank, the trend, the lead's heat history and why its items are one
    story. `asked`: the reader pointed at `topic` itself, so it leads."""
    history = [p.heat for p in await asyncio.to_thread(runtime.store.history, topic.id) if p.heat is not None]
    return story_answer(topic, runtime.clusters.get(topic.id), stored=runtime.stored, history=history,
                        asked=asked)


async def story_about(runtime: Runtime, words: str) -> Fact | None:
    """The story these words name (its title first, then the ranker), or None when nothing fits."""
    topic = await find_story(runtime, words)
    return None if topic is None else await gather(runtime, topic, with_history=True)


async def story_at(runtime: Runtime, source: str, rank: int) -> Fact | None:
    """The story at place `rank` of one platform's list (its own rank), or None when the list is shorter."""
    own = [s.topic for s in runtime.stored.values() if s.topic.source == source]
    at = [t for t in own if t.rank == rank]
    if not at:  # a list without ranks: its order is its rank
        ordered = sorted(own, key=lambda t: (t.rank if t.rank is not None else 10**6, -(t.heat or 0)))
        at = ordered[rank - 1:rank] if all(t.rank is None for t in own) else []
    return await gather(runtime, at[0], with_history=True) if at else None


async def story_by_id(runtime: Runtime, story_id: str) -> Fact | None:
    """A story by a topic id (`zhihu:123`) or a cross-platform story id (`c-…`), as the other answers give them."""
    stored = runtime.stored.get(story_id)
    if stored is not None:
        return await gather(runtime, stored.topic, with_history=True)
    for cluster in runtime.cluster_list():
        if cluster.id == story_id:
            lead = next((m for m in cluster.members if m.id in runtime.stored), None)
            return None if lead is None else await gather(runtime, lead, with_history=True)
    return None
