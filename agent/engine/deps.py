"""What workflow steps may use: a narrow protocol, not the running service.

The engine and its steps import only this, so they never import the object that drives
them (`agent.runtime`), and a test can hand a step just the parts it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from agent.stories.linking import Story
from agent.stories.published import StoryView

from ..captions.caption import Caption
from ..captions.templates import CaptionLang
from ..notify import Message
from ..ranking import Ranked, RankQuery
from ..store import Store

__all__ = ["StepDeps"]


class StepDeps(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def data_dir(self) -> Path: ...

    async def fetch(self, sources: Sequence[str] | None) -> dict[str, str]:
        """Run the scheduler's fetch job for these sources (all when None); source → outcome status."""
        ...

    async def rank(self, q: RankQuery) -> list[Ranked]: ...

    def story_key(self, topic_id: str) -> str: ...

    def ranked_again(self, topic_id: str, score: float) -> Ranked | None:
        """A topic ranked on an earlier line, as the index holds it now (None: no longer held)."""
        ...

    def members_of(self, stories: set[str]) -> set[str]: ...

    def cluster_list(self) -> list[Story]: ...

    def story_view(self) -> StoryView: ...

    def compose_caption(self, ranked: Ranked, *, profile: str, ttl_ms: int | None = None,
                        session_id: str | None = None, summary: str | None = None,
                        lang: CaptionLang | None = None) -> Caption: ...

    async def gloss(self, title: str, context: str, *, timeout_s: float) -> str | None: ...

    async def push(self, item: Any, *, display: str = "session") -> list[str]: ...

    async def notify(self, message: Message) -> list[str]:
        """`message` to every push channel (TRENDLENS_NOTIFY_URLS); the channels that took it."""
        ...
