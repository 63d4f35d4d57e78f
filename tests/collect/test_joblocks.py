"""Each source's fetch job runs on exactly one instance, and moves to another when that one dies."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

from agent.collect.joblocks import AdvisoryJobLocks, LocalJobLocks


def _soon(check, timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_one_process_runs_every_job():
    assert LocalJobLocks().claim("fetch:weibo")


def test_a_job_belongs_to_one_connection_until_it_closes(postgres_url):
    a, b = AdvisoryJobLocks(postgres_url), AdvisoryJobLocks(postgres_url)
    try:
        assert a.claim("fetch:weibo") and a.claim("fetch:weibo")  # the holder keeps it, tick after tick
        assert not b.claim("fetch:weibo")
        assert b.claim("fetch:zhihu") and not a.claim("fetch:zhihu")  # jobs are independent
        a.close()
        assert _soon(lambda: b.claim("fetch:weibo"))  # once the server has ended a's backend
    finally:
        a.close()
        b.close()


def test_a_holder_whose_connection_was_cut_does_not_keep_running_the_job(postgres_url):
    import psycopg

    a, b = AdvisoryJobLocks(postgres_url), AdvisoryJobLocks(postgres_url)
    try:
        assert a.claim("fetch:weibo")
        with psycopg.connect(postgres_url, autocommit=True) as admin:  # e.g. a database failover
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = 'trendlens-jobs' AND pid <> pg_backend_pid()")
        assert _soon(lambda: b.claim("fetch:weibo"))
        assert not a.claim("fetch:weibo")  # a reconnects, finds the job taken and skips it
    finally:
        a.close()
        b.close()


INSTANCE = """
import asyncio, os, sys
from agent.collect.collector import Collector
from agent.collect.scheduling import build_scheduler
from agent.settings import Settings
from agent.store import open_store

async def main():
    settings = Settings(data_dir=sys.argv[1], database_url=sys.argv[2], offline=True, sources=["v2ex"],
                        interval_overrides={"v2ex": int(sys.argv[3])})
    store = open_store(settings)
    collector = Collector(settings, store)

    async def said(outcomes):
        print("fetched", os.getpid(), flush=True)

    collector.listeners.append(said)
    build_scheduler(collector).start()
    print("ready", os.getpid(), flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def _instance(tmp_path, name, url, interval, events):
    proc = subprocess.Popen([sys.executable, "-c", INSTANCE, str(tmp_path / name), url, str(interval)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def pump():
        for line in proc.stdout:
            events.put((time.monotonic(), line.split()[0], proc.pid))

    threading.Thread(target=pump, daemon=True).start()
    return proc


def test_the_fetch_job_runs_on_one_instance_and_moves_when_it_is_killed(postgres_url, tmp_path):
    interval = 2
    events: queue.Queue = queue.Queue()
    procs = [_instance(tmp_path, name, postgres_url, interval, events) for name in ("a", "b")]
    try:
        seen: list[tuple[float, str, int]] = []
        deadline = time.monotonic() + 60
        while sum(kind == "ready" for _, kind, _ in seen) < 2 or sum(k == "fetched" for _, k, _ in seen) < 3:
            seen.append(events.get(timeout=max(0.1, deadline - time.monotonic())))
        time.sleep(interval * 1.5)  # a few more ticks on both instances
        while not events.empty():
            seen.append(events.get())
        fetchers = {pid for _, kind, pid in seen if kind == "fetched"}
        assert len(fetchers) == 1, "both instances fetched the same source"
        holder = fetchers.pop()
        survivor = next(p for p in procs if p.pid != holder)

        os.kill(holder, signal.SIGKILL)
        killed_at = time.monotonic()
        while True:
            at, kind, pid = events.get(timeout=interval * 4)
            if kind == "fetched" and pid == survivor.pid:
                break
        assert at - killed_at <= 2 * interval, f"takeover took {at - killed_at:.1f}s"
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
            p.wait(timeout=10)
            p.stdout.close()
