"""Several instances on one database: what one writes the others read, and migrations run once."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from agent.collect.fetching import SourceOutcome
from agent.models import Topic
from agent.settings import Settings
from agent.store import open_store
from agent.store.migrations import MIGRATIONS


def test_ingest_on_one_instance_is_read_on_another(postgres_url, tmp_path):
    a = open_store(Settings(data_dir=tmp_path / "a", database_url=postgres_url))
    b = open_store(Settings(data_dir=tmp_path / "b", database_url=postgres_url))
    try:
        a.ingest([Topic(source="user", item_id="1", title="哪吒2 票房破百亿", heat=9.0)])
        a.record_cycle([SourceOutcome(source="weibo", topics=[Topic(source="weibo", item_id="w", title="春晚", rank=1,
                                                                   heat=5.0)])])
        assert {t.topic.title for t in b.current()} == {"哪吒2 票房破百亿", "春晚"}
        assert [h.source for h in b.health()] == ["weibo"] and b.cycle_count() == 2
        # and the other way round, through the plain query seam the sessions use
        with b.transaction() as db:
            db.execute("INSERT INTO api_keys (key_hash, label, created_at) VALUES (?, ?, ?)", ("h", "ops", "now"))
        assert [r["label"] for r in a.query("SELECT label FROM api_keys")] == ["ops"]
    finally:
        a.close()
        b.close()


OPENER = """
import sys, time
from agent.settings import Settings
from agent.store import open_store
start_at = float(sys.argv[3])
time.sleep(max(0.0, start_at - time.time()))  # every process opens the new database at the same moment
store = open_store(Settings(data_dir=sys.argv[1], database_url=sys.argv[2] or None))
print(store.schema_version)
store.close()
"""


def test_instances_starting_together_migrate_once(database_url, tmp_path):
    start_at = time.time() + 3.0  # time enough for four interpreters to import the package
    procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(tmp_path), database_url or "", str(start_at)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"}) for _ in range(4)]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [err[-400:] for _, err in results]
    assert {out.strip() for out, _ in results} == {str(len(MIGRATIONS))}
    if database_url:
        store = open_store(Settings(data_dir=tmp_path, database_url=database_url))
        rows = store.query("SELECT version, applied_by FROM schema_migrations ORDER BY version")
        store.close()
        assert [r["version"] for r in rows] == list(range(1, len(MIGRATIONS) + 1))  # one row each: applied once
        assert {r["applied_by"] for r in rows} <= {p.pid for p in procs}


def test_a_long_write_on_one_thread_does_not_hold_up_reads_on_others(postgres_url, tmp_path):
    import threading

    store = open_store(Settings(data_dir=tmp_path, database_url=postgres_url))
    inside = threading.Event()

    def slow_write() -> None:
        with store.transaction() as db:
            db.execute("INSERT INTO api_keys (key_hash, label, created_at) VALUES (?, ?, ?)", ("h", "slow", "now"))
            inside.set()
            time.sleep(1.5)  # e.g. a large fetch cycle being written

    writer = threading.Thread(target=slow_write)
    writer.start()
    try:
        assert inside.wait(10)
        started = time.monotonic()
        assert store.query("SELECT COUNT(*) FROM api_keys")[0][0] == 0  # not committed yet, and not waited for
        assert time.monotonic() - started < 1.0
    finally:
        writer.join()
    assert store.query("SELECT COUNT(*) FROM api_keys")[0][0] == 1
    store.close()


def test_connections_cut_by_the_server_are_replaced(postgres_url, tmp_path):
    import psycopg

    store = open_store(Settings(data_dir=tmp_path, database_url=postgres_url))
    try:
        assert store.cycle_count() == 0
        with psycopg.connect(postgres_url, autocommit=True) as admin:  # e.g. a failover or an idle timeout
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = 'trendlens' AND datname = current_database()")
        # every caller is answered: a dead connection is found at checkout and replaced, not handed out
        assert [store.cycle_count() for _ in range(4)] == [0, 0, 0, 0]
    finally:
        store.close()
