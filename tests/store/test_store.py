"""The store: snapshots, heat history, health, retention, migrations and crash safety.

Each test taking `store` runs on SQLite and on a real PostgreSQL (see conftest).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import timedelta

import pytest

from agent.collect.fetching import SourceOutcome
from agent.errors import FetchError, StoreError
from agent.models import Topic, utcnow
from agent.settings import Settings
from agent.store import SQLiteStore, open_store
from agent.store.migrations import MIGRATIONS


def topics(*pairs, source="weibo"):
    return [Topic(source=source, item_id=title, title=title, rank=i + 1, heat=heat) for i, (title, heat) in
            enumerate(pairs)]


def test_heat_history_first_seen_and_velocity(store):
    t0 = utcnow()
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("春晚", 100.0)))], now=t0)
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("春晚", 400.0), ("哪吒2", 50.0)))],
                       now=t0 + timedelta(minutes=30))
    current = {t.topic.title: t for t in store.current()}
    assert current["春晚"].velocity == pytest.approx(600.0)  # +300 heat in half an hour
    assert current["春晚"].trend == "rising" and current["哪吒2"].trend == "new"
    assert current["春晚"].first_seen < current["春晚"].last_seen
    assert [p.heat for p in store.history("weibo:春晚")] == [100.0, 400.0]


def test_failing_source_keeps_last_good_snapshot_and_health(store):
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("春晚", 1.0)))])
    for _ in range(2):
        store.record_cycle([SourceOutcome(source="weibo", error=FetchError("weibo", "HTTP 503"))])
    assert [t.topic.title for t in store.current(source="weibo")] == ["春晚"]
    health = {h.source: h for h in store.health()}["weibo"]
    assert health.consecutive_failures == 2 and health.last_error == "weibo: HTTP 503"
    assert health.last_success is not None and health.status == "fetch"


def test_only_latest_snapshot_is_current(store):
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("old", 1.0)))])
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("new", 1.0)))])
    assert [t.topic.title for t in store.current()] == ["new"]
    assert store.get("weibo:old") is not None  # still there with its history


def test_retention_prunes_old_observations(store):
    old = utcnow() - timedelta(days=40)
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("gone", 1.0)))], now=old)
    store.record_cycle([SourceOutcome(source="zhihu", topics=topics(("kept", 1.0), source="zhihu"))])
    assert store.prune(30) == 1
    assert store.get("weibo:gone") is None and store.get("zhihu:kept") is not None


def test_migrations_are_versioned_and_idempotent(database_url, tmp_path):
    settings = Settings(data_dir=tmp_path, database_url=database_url)
    open_store(settings).close()
    store = open_store(settings)
    assert store.schema_version == len(MIGRATIONS)
    store.ingest([Topic(source="user", item_id="x", title="still here")])
    store.close()
    reopened = open_store(settings)
    assert [t.topic.title for t in reopened.current()] == ["still here"]
    reopened.close()


def test_sqlite_runs_in_wal_mode(tmp_path):
    SQLiteStore(tmp_path / "s.db").close()
    db = sqlite3.connect(tmp_path / "s.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_newer_schema_is_refused(tmp_path):
    db = sqlite3.connect(tmp_path / "s.db")
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    db.close()
    with pytest.raises(StoreError, match="newer than this TrendLens"):
        SQLiteStore(tmp_path / "s.db")


WRITER = """
import sys, time
from agent.settings import Settings
from agent.store import open_store
from agent.collect.fetching import SourceOutcome
from agent.models import Topic
store = open_store(Settings(data_dir=sys.argv[1], database_url=sys.argv[2] or None))
n = 0
while True:
    n += 1
    batch = [Topic(source="weibo", item_id=f"{n}-{i}", title=f"cycle {n} item {i}", rank=i + 1, heat=float(i))
             for i in range(50)]
    store.record_cycle([SourceOutcome(source="weibo", topics=batch)])
    print(n, flush=True)
"""


def test_kill_9_mid_cycle_keeps_every_committed_cycle(database_url, tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), database_url or ""], stdout=subprocess.PIPE,
                            text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    committed = 0
    deadline = time.monotonic() + 20
    while committed < 15 and time.monotonic() < deadline:
        committed = int(proc.stdout.readline() or committed)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert committed >= 15
    store = open_store(Settings(data_dir=tmp_path, database_url=database_url))
    if database_url is None:
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    cycles = store.cycle_count()
    assert cycles >= committed  # every cycle reported as committed survived
    # each surviving cycle is whole: 50 observations, never a partial one
    counts = store.query("SELECT cycle_id, COUNT(*) FROM observations GROUP BY cycle_id")
    assert len(counts) == cycles and {c[1] for c in counts} == {50}
    store.close()


def test_changes_since_names_the_sources_that_changed(store):
    t0 = utcnow() - timedelta(days=3)
    assert store.changes_since(None) == (store.data_version(), None)  # no version: it cannot tell
    store.record_cycle([SourceOutcome(source="weibo", topics=topics(("春晚", 1.0))),
                        SourceOutcome(source="zhihu", topics=topics(("哪吒2", 1.0), source="zhihu"))], now=t0)
    seen = store.data_version()
    assert store.changes_since(seen) == (seen, frozenset())
    store.record_cycle([SourceOutcome(source="weibo", error=FetchError("weibo", "HTTP 503"))],
                       now=t0 + timedelta(hours=1))
    version, changed = store.changes_since(seen)
    assert version == store.data_version() and changed == {"weibo"}
    # an ingest changes the sources of the rows it wrote, whatever its topics say: a `ref` onto zhihu's row
    store.ingest([Topic(source="user", item_id="1", title="x", ref="zhihu:哪吒2")], now=t0 + timedelta(hours=2))
    assert store.changes_since(version)[1] == {"ingest", "zhihu"}
    assert store.changes_since(seen)[1] == {"weibo", "ingest", "zhihu"}


def test_changes_since_cannot_tell_after_a_prune_or_a_late_commit(store):
    old = utcnow() - timedelta(days=40)
    for i in range(3):
        store.record_cycle([SourceOutcome(source="weibo", topics=topics((f"t{i}", 1.0)))],
                           now=old + timedelta(days=2 * i))
    version = store.data_version()
    # a version read while a cycle numbered below the newest had not committed yet (several writers)
    before = version._replace(cycles=version.cycles - 1)
    assert store.changes_since(before)[1] is None
    assert store.prune(39) > 0  # removes the first cycle: every source's history may have changed
    assert store.changes_since(version)[1] is None
    # the late commit and the prune cancel out in the count: the prune's own record still tells
    assert store.data_version().cycles == before.cycles and store.changes_since(before)[1] is None
    assert store.prune(39) == 0 and store.changes_since(store.data_version())[1] == frozenset()
