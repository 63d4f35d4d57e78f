"""After each fetch cycle, every owner's groups against every current story: one alert per story per
group, to the owner's channels (the operator's: TRENDLENS_NOTIFY_URLS) and its `GET /v1/alerts`.

A story is the cross-platform story the index groups (one event on Weibo, Zhihu and Baidu is one
story), so the same event seen on a second platform is not a second alert; a group with `^N` alerts
once more when its story reaches N platforms.

Each alert is claimed in the store (agent/store/alerts.py), handed to the outbox and marked sent
once a channel took it: the check (and so the fetch cycle that runs it) never waits for a channel,
and an alert that was not sent is claimed again at a later check until it expires.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING

from agent.ranking.query import RankQuery
from agent.sources.links import safe_link
from agent.store import Store
from agent.store.alerts import ALERT_LEASE, Claim, claim_alert, mark_sent, reclaim_due, renew

from ..models import Topic, utcnow
from ..notify import Notifier, alert_message
from ..notify.message import Story
from ..notify.outbox import Outbox, Push
from .lists import OPERATOR, Alert, WatchLists
from .matching import group_matches, story_text
from .rules import SlowPattern

if TYPE_CHECKING:
    from agent.index.topic_index import TopicIndex

__all__ = ["MEANING_TOP_K", "Watcher"]

MEANING_TOP_K = 5  # stories a `~` meaning may match per cycle: the ranker's best past the gate
OWNER_SCAN_S = 1.0  # one owner's words against every story, per check: past it, the rest waits a check
log = logging.getLogger("trendlens.watch")


@dataclass(frozen=True)
class _Story:
    id: str
    members: tuple[Topic, ...]

    @property
    def platforms(self) -> set[str]:
        return {t.source for t in self.members}


@dataclass(frozen=True)
class _Due:
    claim: Claim
    retried: bool = False  # claimed again: an earlier check's alert that was not sent


def _generation(index: object) -> int | None:
    view = getattr(index, "view", None)
    return getattr(view, "generation", None)


class Watcher:
    def __init__(self, index: TopicIndex, notifier: Notifier, lists: WatchLists, store: Store, *,
                 lease: timedelta = ALERT_LEASE) -> None:
        self.index = index
        self.notifier = notifier
        self.lists = lists
        self.store = store  # which stories each owner's groups alerted (agent/store/alerts.py)
        self.lease = lease  # how long a claimed alert waits for its send before it is claimed again
        self._meant: tuple[int, dict[str, frozenset[str]]] | None = None  # (index generation, meanings)

    @property
    def outbox(self) -> Outbox:
        """Where the alerts wait for their channels: the lists' outbox."""
        return self.lists.outbox

    async def after_cycle(self, outcomes: Sequence[object]) -> None:
        """The collector's listener (after the index's): alert what this cycle shows first."""
        await self.check()

    async def check(self) -> list[tuple[str, Alert]]:
        """Claim the alerts due now and hand them to the outbox, with those an earlier check claimed and
        did not get sent; (owner, alert) for each newly due. Never waits for a channel."""
        await asyncio.to_thread(self.lists.refresh)  # lists another instance saved since the last check
        meant = await self.meant()
        due = await asyncio.to_thread(self._claim, meant)
        for claim in due:
            self._offer(claim)
        return [(d.claim.owner, Alert.of(d.claim.alert)) for d in due if not d.retried]

    def _claim(self, meant: Mapping[str, frozenset[str]]) -> list[_Due]:
        fresh = [_Due(c) for c in self.scan(meant)]
        just = frozenset((d.claim.owner, d.claim.group, d.claim.story_id) for d in fresh)
        return fresh + [_Due(c, retried=True) for c in reclaim_due(self.store, utcnow(), lease=self.lease, skip=just)]

    def _offer(self, due: _Due) -> None:
        claim = due.claim
        held = self.lists.owners.get(claim.owner)
        channels = self.notifier if claim.owner == OPERATOR else (held.notifier if held else None)
        if not channels:  # nowhere to push: GET /v1/alerts is where it is read
            self._mark(claim)
            return
        alert = Alert.of(claim.alert)
        story = Story(title=alert.title, places=alert.places, url=alert.url)
        message = alert_message(story, group=alert.group, again=alert.again)

        held_claim = claim

        async def ready() -> bool:  # still ours after the wait in the queue: renew the lease for the send
            nonlocal held_claim
            renewed = await asyncio.to_thread(renew, self.store, claim, utcnow(), self.lease)
            held_claim = renewed or claim
            return renewed is not None

        async def done(sent: bool) -> None:
            if sent:
                await asyncio.to_thread(mark_sent, self.store, held_claim)
            # unsent: stays pending; claimed again once its lease ends, until it expires

        owner = None if claim.owner == OPERATOR else claim.owner  # a key's share of the queue is bounded
        if not self.outbox.offer(Push(notifier=channels, message=message, done=done, ready=ready, owner=owner)):
            log.warning("push queue full: an alert of %s waits for a later check", claim.owner[:8])

    def _mark(self, claim: Claim) -> None:
        mark_sent(self.store, claim)

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
        generation = _generation(self.index)
        cached = self._meant[1] if self._meant is not None and self._meant[0] == generation else {}
        # each meaning is ranked once per index generation, however many lists hold it
        out = {m: cached[m] for m in meanings if m in cached}
        for meaning in sorted(meanings - out.keys()):
            ranked = await self.index.rank(RankQuery(text=meaning, top_k=MEANING_TOP_K, gate=True))
            out[meaning] = frozenset(self.index.story_key(r.topic.id) for r in ranked)
        if generation is not None:
            self._meant = (generation, out)
        return out

    def scan(self, meant: Mapping[str, frozenset[str]] | None = None) -> list[Claim]:
        """The alerts due now, each owner's and group's, claimed in the store for this caller (blocking).
        `meant`: what `meant()` found for the groups' `~` meanings."""
        meant = meant or {}
        stories = self.stories()
        texts = {s.id: story_text(t.title for t in s.members) for s in stories}
        due: list[Claim] = []
        now = utcnow()
        for owner, held in list(self.lists.owners.items()):
            spent = 0.0  # matching this owner's words (not claiming): bounded per check
            for group in held.groups:
                if spent > OWNER_SCAN_S:  # this owner's words take too long: the rest waits a check
                    log.warning("watch list of %s: matching stopped after %.1fs this check", owner[:8], spent)
                    break
                count = 0
                for story in stories:
                    if group.cap is not None and count >= group.cap:
                        break
                    if spent > OWNER_SCAN_S:
                        break
                    by_meaning = any(story.id in meant.get(m, ()) for m in group.meanings)
                    started = time.monotonic()
                    try:
                        matched = group_matches(group, texts[story.id], meant=by_meaning)
                    except SlowPattern as exc:  # once per word: it matches nothing from now on
                        log.warning("watch list of %s: %s", owner[:8], exc)
                        matched = False
                    spent += time.monotonic() - started
                    if not matched:
                        continue
                    n = len(story.platforms)
                    lead = story.members[0]
                    places = tuple(sorted(((t.source, t.rank) for t in story.members),
                                          key=lambda p: p[1] or 10**6))
                    alert = Alert(group=group.name, story_id=story.id, title=lead.title, places=places,
                                  url=next((u for t in story.members if (u := safe_link(t))), None),
                                  again=False, at=now)
                    claim = claim_alert(self.store, owner, group.name, story.id, platforms=n,
                                        again_at=group.again_at, now=now, first=alert.public(),
                                        again=replace(alert, again=True).public(), lease=self.lease)
                    if claim is None:
                        continue
                    due.append(claim)
                    count += 1
        return due

