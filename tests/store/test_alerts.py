"""Watch alerts exactly once: claimed in the store, sent, then marked, whoever else checks at the same time."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

from agent.models import Topic
from agent.notify import Notifier
from agent.watch import Watcher, WatchLists
from tests.notify.receiver import receiver

STORIES = 100
CHECKS = 8


class Index:
    """The two things the watcher reads of the topic index: current topics and their story."""

    def __init__(self, n: int) -> None:
        topics = [Topic(source="weibo", item_id=str(i), title=f"机器人新闻第{i}条", rank=i) for i in range(1, n + 1)]
        self.stored = {t.id: type("Stored", (), {"topic": t})() for t in topics}

    def story_key(self, topic_id: str) -> str:
        return "s-" + topic_id


async def drained(watchers: list[Watcher]) -> None:
    for w in watchers:
        await w.outbox.drain()


def test_concurrent_checks_alert_every_story_exactly_once(store) -> None:
    index = Index(STORIES)
    for trial in range(5):
        group = f"机器人 #{trial}"  # a fresh group each trial: every story is due once more

        async def run(url: str, group: str = group) -> list[str]:
            # eight checks at once, as from eight instances sharing the database
            watchers = [Watcher(index, Notifier([url]), WatchLists(group), store)  # type: ignore[arg-type]
                        for _ in range(CHECKS)]
            found = await asyncio.gather(*(w.check() for w in watchers))
            await drained(watchers)
            for w in watchers:
                w.lists.close()
            return [a.story_id for due in found for _, a in due]

        with receiver() as r:
            claimed = asyncio.run(run(r.url()))
        sent = Counter(body["message"] for body in r.bodies())
        assert sorted(claimed) == sorted(f"s-weibo:{i}" for i in range(1, STORIES + 1)), trial
        assert len(sent) == STORIES and set(sent.values()) == {1}, trial


def test_an_alert_claimed_and_never_sent_is_sent_by_the_next_check(store) -> None:
    index = Index(3)
    with receiver() as r:
        async def run() -> None:
            dying = Watcher(index, Notifier([r.url()]), WatchLists("机器人"), store,  # type: ignore[arg-type]
                            lease=timedelta(0))
            assert len(dying.scan()) == 3  # claimed, then the process is killed before it sends
            dying.lists.close()
            later = Watcher(index, Notifier([r.url()]), WatchLists("机器人"), store,  # type: ignore[arg-type]
                            lease=timedelta(seconds=60))
            assert await later.check() == []  # nothing newly due: the three are retries
            await later.outbox.drain()
            await later.check()  # sent and marked: never again
            await later.outbox.drain()
            later.lists.close()

        asyncio.run(run())
    assert len(r.bodies()) == 3


def test_a_channel_that_fails_keeps_its_alert_pending_until_it_is_sent(store) -> None:
    from agent.store.alerts import recent_alerts
    from agent.watch.lists import OPERATOR

    index = Index(1)
    with receiver() as r:
        r.failing.add("/hook")

        async def run() -> None:
            watcher = Watcher(index, Notifier([r.url()], retries=0), WatchLists("机器人"), store,  # type: ignore[arg-type]
                              lease=timedelta(0))
            await watcher.check()
            await watcher.outbox.drain()
            [pending] = recent_alerts(store, OPERATOR)
            assert pending["state"] == "pending" and pending["expires_at"]
            r.failing.clear()
            await watcher.check()  # its lease is over: claimed again, sent this time
            await watcher.outbox.drain()
            await watcher.check()
            await watcher.outbox.drain()
            watcher.lists.close()

        asyncio.run(run())
    assert len(r.bodies()) == 2  # the failed try, then the one that got through; none after
    [sent] = recent_alerts(store, OPERATOR)
    assert sent["state"] == "sent"


def test_an_alert_never_sent_expires_and_is_listed_as_expired(store) -> None:
    from datetime import UTC, datetime

    from agent.store.alerts import claim_alert, recent_alerts, reclaim_due

    now = datetime(2030, 1, 1, tzinfo=UTC)
    alert = {"group": "机器人", "story_id": "s1", "title": "t", "platforms": [], "url": None, "again": False,
             "at": now.isoformat()}
    assert claim_alert(store, "k1", "机器人", "s1", platforms=1, again_at=None, now=now, first=alert, again=alert,
                       lease=timedelta(seconds=1), expires=timedelta(minutes=5)) is not None
    assert [c.story_id for c in reclaim_due(store, now + timedelta(minutes=1))] == ["s1"]  # retried meanwhile
    assert reclaim_due(store, now + timedelta(minutes=10)) == []  # past its expiry: no longer sent
    [listed] = recent_alerts(store, "k1")
    assert listed["state"] == "expired" and listed["expires_at"].startswith("2030-01-01T00:05")


CLAIM_THEN_DIE = """
import os, signal, sys
from datetime import timedelta
from agent.notify import Notifier
from agent.settings import Settings
from agent.store import open_store
from agent.watch import Watcher, WatchLists
from tests.store.test_alerts import Index

store = open_store(Settings(data_dir=sys.argv[1]))
watcher = Watcher(Index(5), Notifier([sys.argv[2]]), WatchLists("机器人"), store, lease=timedelta(seconds=1))
assert len(watcher.scan()) == 5  # claimed in the store
os.kill(os.getpid(), signal.SIGKILL)  # killed before anything is sent
"""


def test_a_process_killed_between_claim_and_send_loses_no_alert_and_repeats_none(tmp_path) -> None:
    import subprocess
    import sys
    import time

    from agent.settings import Settings
    from agent.store import open_store

    data = tmp_path / "data"
    with receiver() as r:
        died = subprocess.run([sys.executable, "-c", CLAIM_THEN_DIE, str(data), r.url()], timeout=120,
                              capture_output=True, text=True)
        assert died.returncode == -9, died.stderr
        time.sleep(1.1)  # the dead claims' lease runs out
        store = open_store(Settings(data_dir=data))

        async def later() -> None:
            watcher = Watcher(Index(5), Notifier([r.url()]), WatchLists("机器人"), store,  # type: ignore[arg-type]
                              lease=timedelta(0))
            for _ in range(3):  # the next checks: the claims' leases are over, each is sent once
                await watcher.check()
                await watcher.outbox.drain()
            watcher.lists.close()

        try:
            asyncio.run(later())
        finally:
            store.close()
    assert sorted(Counter(b["message"] for b in r.bodies()).values()) == [1] * 5
