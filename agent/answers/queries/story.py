"""One story, found by the words of its title, by its place on a list, or by its id: where it is
listed, how its heat moves and when it first appeared (`chat.facts.Fact`, with the heat history),
and the one answer to "what is this story" (`told`: `stories.answer.story_answer`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.answers.chat.facts import Fact, gather
from agent.answers.chat.search import find_story
from agent.models import Topic
from agent.stories.answer import StoryAnswer, story_answer

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

__all__ = ["story_about", "story_at", "story_by_id", "told"]


async def told(deps: ChatDeps, topic: Topic, *, asked: bool = False) -> StoryAnswer:
    """The whole story `topic` belongs to, as the chat, Lingzhu and the MCP `story` tool tell it:
    every platform with its rank, the trend, the lead's heat history and why its items are one
    story. `asked`: the reader pointed at `topic` itself, so it leads."""
    return story_answer(topic, deps.index.clusters.get(topic.id), stored=deps.index.stored,
                        history=await deps.heat_history(topic.id), asked=asked)


async def story_about(deps: ChatDeps, words: str) -> Fact | None:
    """The story these words name (its title first, then the ranker), or None when nothing fits."""
    topic = await find_story(deps, words)
    return None if topic is None else await gather(deps, topic, with_history=True)


async def story_at(deps: ChatDeps, source: str, rank: int) -> Fact | None:
    """The story at place `rank` of one platform's list (its own rank), or None when the list is shorter."""
    own = [s.topic for s in deps.index.stored.values() if s.topic.source == source]
    at = [t for t in own if t.rank == rank]
    if not at:  # a list without ranks: its order is its rank
        ordered = sorted(own, key=lambda t: (t.rank if t.rank is not None else 10**6, -(t.heat or 0)))
        at = ordered[rank - 1:rank] if all(t.rank is None for t in own) else []
    return await gather(deps, at[0], with_history=True) if at else None


async def story_by_id(deps: ChatDeps, story_id: str) -> Fact | None:
    """A story by a topic id (`zhihu:123`) or a cross-platform story id (`c-…`), as the other answers give them."""
    stored = deps.index.stored.get(story_id)
    if stored is not None:
        return await gather(deps, stored.topic, with_history=True)
    for cluster in deps.index.cluster_list():
        if cluster.id == story_id:
            lead = next((m for m in cluster.members if m.id in deps.index.stored), None)
            return None if lead is None else await gather(deps, lead, with_history=True)
    return None
