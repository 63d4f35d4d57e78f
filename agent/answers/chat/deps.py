"""What the chat and the answers it shares (`agent.answers.queries`) may use: a narrow protocol, not the
running service.

As workflow steps see only `StepDeps`, the chat never imports the object that drives it
(`agent.runtime`), and a test can hand it just the parts it needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import httpx

from agent.engine.llm import LlmConfig
from agent.ranking import Ranked, RankQuery
from agent.store import StoredTopic
from agent.stories.linking import Story

__all__ = ["ChatDeps", "TopicReader"]


class TopicReader(Protocol):
    """The reading side of `TopicIndex`: the current topics and stories, and the one ranking call."""

    @property
    def stored(self) -> Mapping[str, StoredTopic]:
        """The current topics' stored rows, by topic id."""
        ...

    @property
    def clusters(self) -> Mapping[str, Story]:
        """The cross-platform story of each current topic, by topic id."""
        ...

    async def rank(self, q: RankQuery) -> list[Ranked]: ...

    def story_key(self, topic_id: str) -> str: ...

    def cluster_list(self) -> list[Story]: ...


class ChatDeps(Protocol):
    @property
    def index(self) -> TopicReader: ...

    @property
    def llm(self) -> tuple[LlmConfig, httpx.AsyncClient] | None:
        """The LLM that may word answers and the client that reaches it; None: the templates answer alone."""
        ...

    async def heat_history(self, topic_id: str) -> list[float]:
        """A topic's recorded heat, oldest first (points without a heat left out)."""
        ...
