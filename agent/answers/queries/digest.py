"""The digest of one time window, built on the running service's stories: `/v1/digest`, the MCP
`digest` tool and its "today" resource."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Literal

from agent.answers.digest import Digest, build_digest
from agent.store import Store
from agent.stories.linking import Story
from agent.stories.published import StoryView

__all__ = ["digest_window"]


async def digest_window(store: Store, stories: list[Story], *, since: datetime | None = None,
                        since_hours: float = 24, lang: Literal["zh", "en", "ja", "other"] | None = None,
                        limit: int = 20, view: StoryView | None = None) -> Digest:
    """Stories seen since `since` (default: the last `since_hours`), hottest first on fair heat;
    `stories`: the index's current cross-platform stories (`TopicIndex.cluster_list`), or better `view`,
    the story view it published (`TopicIndex.view.story_view`), whose occasions are read as they are."""
    return await asyncio.to_thread(build_digest, store, lang=lang, limit=limit, since=since,
                                   since_hours=since_hours, clusters=stories or None,
                                   view=view if view is not None and view.stories else None)
