"""After each fetch cycle, every owner's groups against every current story: one alert per story per
group, to the owner's channels (the operator's: TRENDLENS_NOTIFY_URLS) and its `GET /v1/alerts`.

A story is the cross-platform story the index groups (one event on Weibo, Zhihu and Baidu is one
story), so the same event seen on a second platform is not a second alert; a group with `^N` alerts
once more when its story reaches N platforms.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.ranking.query import RankQuery
from agent.sources.links import safe_link
from agent.store import Store
from agent.store.alerts import alerted_platforms, save_alert

from ..models import Topic, utcnow
from ..notify import Notifier, alert_message
from ..notify.message import Story
from .lists import OPERATOR, Alert, WatchLists
from .matching import group_matches, story_text

if TYPE_CHECKING:
    from agent.index.topic_index import TopicIndex

__all__ = ["MEANING_TOP_K", "Watcher"]

MEANING_TOP_K = 5  # stories a `~` meaning may match per cycle: the ranker's best past the gate

@dataclass(frozen=True)
class _Story:
    id: str
    members: tuple[Topic, ...]

    @property
    def platforms(self) -> set[str]:
        return {t.source for t in self.members}


class Watcher:
    def __init__(self, index: TopicIndex, notifier: Notifier, lists: WatchLists, store: Store) -> None:
        self.index = index
        self.notifier = notifier
        self.lists = lists
        self.store = store  # which stories each owner's groups alerted (agent/store/alerts.py)

    async def after_cycle(self, outcomes: Sequence[object]) -> None:
        """The collector's listener (after the index's): alert what this cycle shows first."""
        await self.check()

    async def check(self) -> list[tuple[str, Alert]]:
        """Send the alerts due now; (owner, alert) for each."""
        sent: list[tuple[str, Alert]] = []
        await asyncio.to_thread(self.lists.refresh)  # lists another instance saved since the last check
        meant = await self.meant()
        for owner, alert in await asyncio.to_thread(self.scan, meant):
            held = self.lists.owners[owner]
            channels = held.notifier if owner != OPERATOR else self.notifier
            if channels:
                story = Story(title=alert.title, places=alert.places, url=alert.url)
                await channels.send(alert_message(story, group=alert.group, again=alert.again))
            sent.append((owner, alert))
        return sent

    def stories(self) -> list[_Story]:
        grouped: dict[str, list[Topic]] = {}
        for stored in self.index.stored.values():
            grouped.setdefault(self.index.story_key(stored.topic.id), []).append(stored.topic)
        return [_Story(key, tuple(sorted(members, key=lambda t: (t.rank or 10**6, t.id))))
                for key, members in grouped.items()]

    async def meant(self) -> dict[str, frozenset[str]]:
        """Each `~` meaning of every group → the stories the ranker matches it to, past the live gate's
        relevance evidence (the bar a caption needs at the table), so a vague meaning alerts nothing."""
        meanings = {m for held in self.lists.owners.values() for g in held.groups for m in g.meanings}
        out: dict[str, frozenset[str]] = {}
        for meaning in sorted(meanings):
            ranked = await self.index.rank(RankQuery(text=meaning, top_k=MEANING_TOP_K, gate=True))
            out[meaning] = frozenset(self.index.story_key(r.topic.id) for r in ranked)
        return out

    def scan(self, meant: Mapping[str, frozenset[str]] | None = None) -> list[tuple[str, Alert]]:
        """The alerts due now, each owner's and group's; marks them sent (in the store: blocking).
        `meant`: what `meant()` found for the groups' `~` meanings."""
        meant = meant or {}
        stories = self.stories()
        texts = {s.id: story_text(t.title for t in s.members) for s in stories}
        due: list[tuple[str, Alert]] = []
        now = utcnow()
        for owner, held in list(self.lists.owners.items()):
            for group in held.groups:
                count = 0
                for story in stories:
                    if group.cap is not None and count >= group.cap:
                        break
                    by_meaning = any(story.id in meant.get(m, ()) for m in group.meanings)
                    if not group_matches(group, texts[story.id], meant=by_meaning):
                        continue
                    n = len(story.platforms)
                    before = alerted_platforms(self.store, owner, group.name, story.id)
                    again = before is not None
                    if before is not None and not (group.again_at and before < group.again_at <= n):
                        continue
                    lead = story.members[0]
                    places = tuple(sorted(((t.source, t.rank) for t in story.members),
                                          key=lambda p: p[1] or 10**6))
                    alert = Alert(group=group.name, story_id=story.id, title=lead.title, places=places,
                                  url=next((u for t in story.members if (u := safe_link(t))), None),
                                  again=again, at=now)
                    save_alert(self.store, owner, group.name, story.id, platforms=n, at=now.isoformat(),
                               alert=alert.public())
                    due.append((owner, alert))
                    count += 1
        return due

