"""The digest of one time window, built on the running service's stories: `/v1/digest`, the MCP
`digest` tool and its "today" resource."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from ..digest import Digest, build_digest

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["digest_window"]


async def digest_window(runtime: Runtime, *, since: datetime | None = None, since_hours: float = 24,
                        lang: Literal["zh", "en", "ja", "other"] | None = None, limit: int = 20) -> Digest:
    """Stories seen since `since` (default: the last `since_hours`), hottest first on fair heat."""
    return await asyncio.to_thread(build_digest, runtime.store, lang=lang, limit=limit, since=since,
                                   since_hours=since_hours, clusters=runtime.cluster_list() or None)
