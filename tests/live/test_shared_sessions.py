"""Two instances on one database and one Redis act as one service for captions."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from fastapi.testclient import TestClient

from agent.api import create_app
from agent.live.gating import Candidate, SessionGate
from agent.live.shared_sessions import dump_state, fresh_state, load_state
from agent.ranking.window import ConversationWindow
from harness.apps import AUTH, make_runtime


def _instance(data_dir: Path, redis_url: str) -> TestClient:
    runtime = make_runtime(data_dir, redis_url=redis_url)
    return TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False))


def test_a_caption_made_on_one_instance_reaches_the_websocket_held_by_another(redis_server, tmp_path):
    data = tmp_path / "shared"  # one SQLite file for both: the session rows are shared
    with _instance(data, redis_server.url) as a, _instance(data, redis_server.url) as b:
        s = a.post("/v1/sessions", json={"profile": "even-g1"}, headers=AUTH).json()
        with b.websocket_connect(f"/hud/{s['id']}/ws", subprotocols=["trendlens.hud", f"token.{s['token']}"]) as ws:
            assert json.loads(ws.receive_text())["type"] == "hello"
            deadline = time.monotonic() + 5
            while b.app.state.runtime.hud.subscriber_count(s["id"]) == 0 and time.monotonic() < deadline:
                time.sleep(0.02)  # the socket is accepted before the route subscribes
            received: list[dict] = []
            reader = threading.Thread(target=lambda: received.append(json.loads(ws.receive_text())), daemon=True)
            reader.start()
            r = a.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚机器人扭秧歌你们看了吗"}, headers=AUTH)
            assert r.status_code == 200
            shown = r.json()["captions"]
            assert shown, r.json()
            reader.join(timeout=10)
            assert received, "no caption reached the other instance's WebSocket"
            assert received[0]["type"] == "caption" and received[0]["session_id"] == s["id"]
            assert received[0]["text"] == shown[0]["text"] and received[0]["topic_id"] == shown[0]["topic_id"]
        # and B remembers it for a viewer that connects later
        assert b.app.state.runtime.hud.last_caption(s["id"]).text == shown[0]["text"]


def test_one_key_draws_on_one_rate_limit_bucket_across_instances(redis_server, tmp_path):
    data = tmp_path / "shared"
    limits = {"rate_limit_per_s": 0.2, "rate_limit_burst": 4}
    runtime_a = make_runtime(data, redis_url=redis_server.url, **limits)
    runtime_b = make_runtime(data, redis_url=redis_server.url, **limits)
    with TestClient(create_app(runtime_a.settings, runtime=runtime_a, schedule=False, announce_key=False)) as a, \
            TestClient(create_app(runtime_b.settings, runtime=runtime_b, schedule=False, announce_key=False)) as b:
        codes = [c.get("/v1/topics", headers=AUTH).status_code for c in (a, b, a, b)]
        assert codes == [200] * 4
        refused = b.get("/v1/topics", headers=AUTH)  # the fifth, on either instance, is past the shared burst
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= 5
        assert a.get("/v1/topics", headers=AUTH).status_code == 429


def test_a_session_made_on_one_instance_continues_on_another(redis_server, tmp_path):
    data = tmp_path / "shared"
    with _instance(data, redis_server.url) as a, _instance(data, redis_server.url) as b:
        s = a.post("/v1/sessions", json={}, headers=AUTH).json()
        first = a.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚机器人扭秧歌你们看了吗"}, headers=AUTH)
        assert first.status_code == 200 and first.json()["captions"], first.json()
        # the same words on B: B knows the caption is still on screen and was just shown, so it stays quiet
        again = b.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚机器人扭秧歌你们看了吗"}, headers=AUTH)
        assert again.status_code == 200
        assert again.json()["captions"] == [], again.json()
        assert again.json()["decision"]["show"] is False
        # and B's conversation window holds what A heard
        window = b.app.state.runtime.sessions.get(s["id"]).window
        assert [u.text for u in window._items] == ["春晚机器人扭秧歌你们看了吗"] * 2
        history = a.get(f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"]
        assert len(history) == 2


async def test_the_fanout_subscribes_again_when_its_redis_connection_drops(redis_server):
    import asyncio

    import redis.asyncio as aioredis

    from agent.captions.caption import Caption
    from agent.display.redis_fanout import RedisFanout

    hub = RedisFanout(redis_server.url, channel="trendlens:test-reconnect")
    await hub.start()
    admin = aioredis.from_url(redis_server.url)
    try:
        sub = hub.subscribe("s1")
        assert await admin.client_kill_filter(_type="pubsub") >= 1  # as when Redis restarts
        caption = Caption(topic_id="t1", title="春晚", text="春晚", lines=("春晚",), score=0.9, source="weibo",
                          ttl_ms=60_000, profile="hud-web", session_id="s1")
        got = None
        for _ in range(40):  # captions published while it resubscribes are lost; the next ones arrive
            await hub.show(caption)
            try:
                got = await asyncio.wait_for(sub.get(), 0.25)
                break
            except TimeoutError:
                continue
        assert got is not None and got["topic_id"] == "t1"
    finally:
        await admin.aclose()
        await hub.aclose()


def test_redis_gone_is_a_503_with_one_line_not_a_crash(tmp_path):
    from harness.servers import start_redis

    own = start_redis()  # this test stops its Redis; the others keep theirs
    stopped = False
    try:
        with _instance(tmp_path / "d", own.url) as a:
            s = a.post("/v1/sessions", json={}, headers=AUTH).json()
            own.stop()
            stopped = True
            r = a.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚机器人扭秧歌你们看了吗"}, headers=AUTH)
            assert r.status_code == 503
            assert "unavailable (Redis" in r.json()["error"]["message"]
            assert "Traceback" not in r.text
    finally:
        if not stopped:
            own.stop()


async def test_a_session_lock_is_kept_while_its_utterance_runs_and_lapses_when_its_holder_dies(redis_server,
                                                                                                  monkeypatch):
    import asyncio

    import pytest
    import redis.asyncio as aioredis

    from agent.live import shared_sessions
    from agent.live.gating import SessionGate
    from agent.ranking.window import ConversationWindow

    monkeypatch.setattr(shared_sessions, "LOCK_TIMEOUT_S", 0.6)
    monkeypatch.setattr(shared_sessions, "LOCK_RENEW_S", 0.2)
    monkeypatch.setattr(shared_sessions, "LOCK_WAIT_S", 0.3)
    a, b = shared_sessions.RedisSessionState(redis_server.url), shared_sessions.RedisSessionState(redis_server.url)
    try:
        async with a.held("slow", ConversationWindow(), SessionGate()):
            await asyncio.sleep(1.5)  # an utterance longer than the lease: it keeps renewing
            with pytest.raises(shared_sessions.SessionBusy):
                async with b.held("slow", ConversationWindow(), SessionGate()):
                    pass
        async with b.held("slow", ConversationWindow(), SessionGate()):  # released on the way out
            pass
        # a holder killed mid-utterance leaves its lock behind, unrenewed: it lapses within the lease
        raw = aioredis.from_url(redis_server.url)
        assert await raw.lock("trendlens:session:dead:lock", timeout=0.6).acquire()
        await raw.aclose()
        monkeypatch.setattr(shared_sessions, "LOCK_WAIT_S", 1.2)
        started = asyncio.get_running_loop().time()
        async with b.held("dead", ConversationWindow(), SessionGate()):
            assert asyncio.get_running_loop().time() - started <= 1.0
    finally:
        await a.aclose()
        await b.aclose()


def test_the_story_held_back_while_a_caption_is_read_travels_with_the_session():
    """The next line may reach another instance: what the gate held back goes with the rest of its state,
    and a state an older instance wrote (without it) still loads."""
    gate = SessionGate()
    gate.held_back = (Candidate(topic_id="weibo:x", score=0.7, key="c-1"), 12.5)
    other = SessionGate()
    load_state(dump_state(ConversationWindow(), gate), ConversationWindow(), other)
    assert other.held_back == gate.held_back
    older = json.loads(fresh_state())
    del older["held_back"]
    load_state(json.dumps(older), ConversationWindow(), other)
    assert other.held_back is None


def test_a_sentence_waiting_for_its_rest_travels_with_the_session():
    """The rest of a sentence may reach another instance: that this recogniser cuts sentences, and when the
    sentence waiting for its rest is decided, go with the state; an older instance's state still loads."""
    gate = SessionGate()
    gate.cut, gate.sentence_due = True, 30.5
    other = SessionGate()
    load_state(dump_state(ConversationWindow(), gate), ConversationWindow(), other)
    assert other.cut and other.sentence_due == 30.5 and other.due() == 30.5
    older = json.loads(fresh_state())
    del older["cut"], older["sentence_due"]
    load_state(json.dumps(older), ConversationWindow(), other)
    assert not other.cut and other.sentence_due is None


def _two_titles(runtime) -> tuple[str, str]:
    """Titles of two different stories, long enough to be decided on."""
    seen: dict[str, str] = {}
    for s in runtime.index.stored.values():
        key = runtime.index.story_key(s.topic.id)
        if len(s.topic.title) >= 8 and key not in seen:
            seen[key] = s.topic.title
    first, second = list(seen.values())[:2]
    return first, second


def test_a_held_back_caption_goes_up_on_the_other_instance_when_the_one_that_heard_it_is_gone(
        redis_server, tmp_path):
    """A meme said while the last caption is read, then the instance that heard it stops: the moment it
    falls due is in Redis, and the other instance puts it up (its HUD holds it) with nobody speaking."""
    from agent.live.gating import GatePolicy

    data = tmp_path / "shared"
    policy = GatePolicy(relevance_offset=-10, min_read_s=0.6, held_back_s=5, replace_margin=-10)
    runtime_a = make_runtime(data, redis_url=redis_server.url)
    runtime_b = make_runtime(data, redis_url=redis_server.url)
    for rt in (runtime_a, runtime_b):
        rt.sessions.policy = policy  # type: ignore[attr-defined]
    with TestClient(create_app(runtime_b.settings, runtime=runtime_b, schedule=False, announce_key=False)) as b:
        with TestClient(create_app(runtime_a.settings, runtime=runtime_a, schedule=False,
                                   announce_key=False)) as a:
            first, second = _two_titles(runtime_a)
            s = a.post("/v1/sessions", json={"profile": "even-g1"}, headers=AUTH).json()
            said = a.post(f"/v1/sessions/{s['id']}/utterances", json={"text": first}, headers=AUTH).json()
            assert said["captions"], said
            held = a.post(f"/v1/sessions/{s['id']}/utterances", json={"text": second}, headers=AUTH).json()
            assert held["decision"]["reason"] == "display_locked" and not held["captions"], held
        # A has stopped (its sweep with it); nobody speaks again
        deadline = time.monotonic() + 5
        shown = None
        while time.monotonic() < deadline:
            shown = runtime_b.hud.last_caption(s["id"])
            if shown is not None and shown.topic_id == held["decision"]["topic_id"]:
                break
            time.sleep(0.05)
        assert shown is not None and shown.topic_id == held["decision"]["topic_id"]
        # recorded as the session's like any other caption, with the wait in its record: "replaced" when the first
        # caption was still up, "shown" when it had faded while instance A stopped (a loaded machine takes seconds)
        items = b.get(f"/v1/sessions/{s['id']}/captions", headers=AUTH).json()["items"]
        last = items[-1]["decision"]
        assert last["reason"] in ("replaced", "shown") and last["topic_id"] == shown.topic_id
        assert "held back" in last["detail"]
