"""The parts that workflow steps and the chat use, put together as the engine's `StepDeps` and the
chat's `ChatDeps`."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from agent.captions.caption import Caption
from agent.captions.composer import CaptionComposer
from agent.captions.templates import CaptionLang
from agent.collect.scheduling import FetchJob
from agent.display.router import DisplayRouter
from agent.engine.llm import LlmConfig
from agent.index.topic_index import TopicIndex
from agent.notify import Message, Notifier
from agent.ranking import Ranked, RankQuery
from agent.store import Store
from agent.stories.linking import Story
from agent.stories.published import StoryView

__all__ = ["PartsDeps"]


@dataclass(frozen=True)
class PartsDeps:
    """Satisfies `agent.engine.deps.StepDeps` and `agent.answers.chat.deps.ChatDeps` by handing each call to the
    part that owns it."""

    store: Store
    data_dir: Path
    index: TopicIndex
    composer: CaptionComposer
    router: DisplayRouter
    fetch_job: FetchJob
    notifier: Notifier

    async def fetch(self, sources: Sequence[str] | None) -> dict[str, str]:
        outcomes = await self.fetch_job.run(sources)  # the collector's listeners re-index afterwards
        return {o.source: o.status for o in outcomes}

    @property
    def llm(self) -> tuple[LlmConfig, httpx.AsyncClient] | None:
        """The composer's LLM and client: what glosses captions also words answers (`ChatDeps`)."""
        llm, client = self.composer.llm, self.composer.llm_client
        return (llm, client) if llm is not None and client is not None else None

    async def heat_history(self, topic_id: str) -> list[float]:
        return [p.heat for p in await asyncio.to_thread(self.store.history, topic_id) if p.heat is not None]

    async def rank(self, q: RankQuery) -> list[Ranked]:
        return await self.index.rank(q)

    def story_key(self, topic_id: str) -> str:
        return self.index.story_key(topic_id)

    def ranked_again(self, topic_id: str, score: float) -> Ranked | None:
        stored = self.index.stored.get(topic_id)
        return None if stored is None else Ranked(id=topic_id, topic=stored.topic, score=score, components={})

    def members_of(self, stories: set[str]) -> set[str]:
        return self.index.members_of(stories)

    def cluster_list(self) -> list[Story]:
        return self.index.cluster_list()

    def story_view(self) -> StoryView:
        return self.index.view.story_view

    def compose_caption(self, ranked: Ranked, *, profile: str, ttl_ms: int | None = None,
                        session_id: str | None = None, summary: str | None = None,
                        lang: CaptionLang | None = None) -> Caption:
        return self.composer.compose(ranked, profile=profile, ttl_ms=ttl_ms, session_id=session_id,
                                     summary=summary, lang=lang)

    async def gloss(self, title: str, context: str, *, timeout_s: float) -> str | None:
        return await self.composer.gloss(title, context, timeout_s=timeout_s)

    async def push(self, item: Any, *, display: str = "session") -> list[str]:
        return await self.router.push(item, display=display)

    async def notify(self, message: Message) -> list[str]:
        return [d.channel for d in await self.notifier.send(message) if d.ok]
