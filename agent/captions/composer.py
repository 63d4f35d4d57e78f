"""Caption wording for a ranked topic: which member words the story, its platforms and heat, and the
optional one-line LLM gloss.

The composer reads the index through `StoryLookup` (the topic index satisfies it), so
captions here and in chat name the same story the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import httpx

from agent.engine.llm import LlmConfig

from ..platforms import weak_headline
from .caption import Caption
from .gist import gist
from .summarize import summarize
from .templates import CaptionLang, compose_caption

__all__ = ["CaptionComposer", "StoryLookup"]


class StoryLookup(Protocol):
    """What the composer reads from the index: a topic's cluster and its stored row."""

    @property
    def clusters(self) -> Mapping[str, Any]: ...

    @property
    def stored(self) -> Mapping[str, Any]: ...

    @property
    def repeated_openers(self) -> frozenset[tuple[str, str]]: ...

    @property
    def occasions(self) -> Sequence[Any]: ...

    @property
    def akin(self) -> Mapping[str, Sequence[str]]: ...


def _headline(topic: Any, members: Sequence[Any]) -> Any:
    """The member that words the story best: the matched item, unless a news-like list does better."""
    if not weak_headline(topic.source):
        return topic
    better = [m for m in members if not weak_headline(m.source)]
    return max(better, key=lambda m: m.heat or 0) if better else topic


class CaptionComposer:
    def __init__(self, stories: StoryLookup, *, llm: LlmConfig | None = None,
                 llm_client: httpx.AsyncClient | None = None) -> None:
        self.stories = stories
        self.llm = llm
        self.llm_client = llm_client  # tests give `Runtime.build` one on an httpx.MockTransport

    def compose(self, ranked: Any, *, profile: str, ttl_ms: int | None = None, session_id: str | None = None,
                summary: str | None = None, lang: CaptionLang | None = None) -> Caption:
        topic = ranked.topic
        cluster = self.stories.clusters.get(topic.id)
        members = cluster.members if cluster else [topic]
        # Members come hottest first by normalised heat (a platform's #1 before another's #30),
        # so the line leads with the platform where the story ranks highest.
        best: dict[str, int | None] = {}
        for m in members:
            best.setdefault(m.source, m.rank)  # one entry per platform, its hottest member's rank
        platforms = list(best.items())  # every platform of the story: the line counts what it cannot show
        stored = self.stories.stored.get(topic.id)
        # raw heats of different platforms do not add up: show the leading platform's own figure
        heat = members[0].heat if cluster else topic.heat
        lead = _headline(topic, members)
        repeated = self.stories.repeated_openers
        occasion = [o.word for o in self.stories.occasions]  # the night's words say which night, not which meme
        inside = {m.id for m in members}
        akin = [row.topic for tid in self.stories.akin.get(topic.id, ())
                if tid not in inside and (row := self.stories.stored.get(tid)) is not None]
        said = summary or gist(lead, members, lambda source, opening: (source, opening) in repeated, occasion,
                               akin=akin)
        return compose_caption(title=lead.title, platforms=platforms, heat=heat,
                               trend=stored.trend if stored else "steady", profile=profile,
                               summary=said, score=ranked.score, topic_id=topic.id,
                               ttl_ms=ttl_ms, session_id=session_id, lang=lang)

    async def gloss(self, title: str, context: str, *, timeout_s: float) -> str | None:
        """A one-line gloss of a topic from the configured LLM, or None (not configured, slow, failed)."""
        if self.llm is None or self.llm_client is None:
            return None
        return await summarize(title, context, client=self.llm_client, base_url=self.llm.base_url,
                               api_key=self.llm.api_key, model=self.llm.model, timeout_s=timeout_s)

    async def aclose(self) -> None:
        if self.llm_client is not None:
            await self.llm_client.aclose()
