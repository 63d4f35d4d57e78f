"""The trending lists: one platform's list in its own order, the hottest stories across platforms (fair
heat), and what is new or rising. Chat, Lingzhu and the MCP tools all answer from these."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

from agent.answers.chat.facts import Fact, gather
from agent.answers.chat.hottest import hottest
from agent.models import utcnow
from agent.sources import REGISTRY

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

__all__ = ["fresh_ids", "fresh_stories", "hottest_stories", "platform_list", "region_sources"]


def region_sources(region: Literal["zh", "en"]) -> tuple[str, ...]:
    """The platforms of one region, told apart by the language of their lists ("in China", "国外")."""
    return tuple(name for name, source in REGISTRY.items() if source.lang == region)


async def platform_list(deps: ChatDeps, source: str, *, limit: int) -> list[Fact]:
    """One platform's current list in its own rank order, its best-placed `limit` items."""
    own = sorted((s.topic for s in deps.index.stored.values() if s.topic.source == source),
                 key=lambda t: (t.rank if t.rank is not None else 10**6, -(t.heat or 0)))
    return [await gather(deps, t, only_source=source) for t in own[:limit]]


async def hottest_stories(deps: ChatDeps, *, limit: int, sources: Iterable[str] | None = None) -> list[Fact]:
    """The hottest stories now, one per cross-platform story, on fair heat (`chat.hottest`)."""
    current = [s.topic for s in deps.index.stored.values()]
    stories = hottest(current, deps.index.clusters, limit=limit, sources=sources)
    return [await gather(deps, s.lead, members=s.members) for s in stories]


async def fresh_stories(deps: ChatDeps, *, hours: float, limit: int, sources: Iterable[str] | None = None,
                        now: datetime | None = None) -> list[Fact]:
    """Stories first seen, or seen rising, within the last `hours`, hottest first."""
    fresh = fresh_ids(deps, hours, now=now)
    current = [s.topic for s in deps.index.stored.values()]
    stories = [s for s in hottest(current, deps.index.clusters, limit=len(current) or 1, sources=sources)
               if any(m.id in fresh for m in s.members)][:limit]
    return [await gather(deps, s.lead, members=s.members) for s in stories]


def fresh_ids(deps: ChatDeps, hours: float, *, now: datetime | None = None) -> set[str]:
    """Topics first seen, or seen rising, within the last `hours`."""
    cut = (now or utcnow()) - timedelta(hours=hours)
    out = set()
    for s in deps.index.stored.values():
        if datetime.fromisoformat(s.first_seen) >= cut or (
                (s.velocity or 0) > 0 and datetime.fromisoformat(s.last_seen) >= cut):
            out.add(s.topic.id)
    return out
