"""The API contract as a client sees it: status codes, shapes, and errors that are JSON."""

from __future__ import annotations

import json

import pytest

from harness.apps import AUTH
from tests.api.conftest import HOSTILE
from tests.api.helpers import session


def assert_error(r, status):
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["message"] and "Traceback" not in r.text
    return body["error"]


# -- auth ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/v1/topics", "/v1/sources", "/v1/models", "/v1/digest"])
def test_every_v1_endpoint_needs_a_key(client, path):
    assert_error(client.get(path), 401)
    assert_error(client.get(path, headers={"Authorization": "Bearer wrong"}), 401)
    assert_error(client.get(path, headers={"Authorization": "Basic abc"}), 401)
    assert client.get(path, headers=AUTH).status_code == 200


def test_post_endpoints_need_a_key_too(client):
    assert_error(client.post("/v1/sessions", json={}), 401)
    assert_error(client.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}), 401)
    assert_error(client.post("/metis/agent/api/sse", json={}), 401)


def test_rate_limit_answers_429_with_retry_after(tmp_path):
    from fastapi.testclient import TestClient

    from agent.api import create_app
    from harness.apps import make_runtime

    runtime = make_runtime(tmp_path / "d", rate_limit_per_s=1, rate_limit_burst=3)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        codes = [c.get("/v1/models", headers=AUTH).status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[-1] == 429
        r = c.get("/v1/models", headers=AUTH)
        assert_error(r, 429)
        assert int(r.headers["Retry-After"]) >= 1


# -- bad input ----------------------------------------------------------------------------
def test_malformed_json_is_a_json_4xx(client):
    r = client.post("/v1/sessions", content=b'{"profile": ', headers={**AUTH, "Content-Type": "application/json"})
    assert "not valid JSON" in assert_error(r, 422)["message"]


def test_wrong_types_and_unknown_profile(client):
    assert_error(client.post("/v1/sessions", json={"profile": 5}, headers=AUTH), 422)
    err = assert_error(client.post("/v1/sessions", json={"profile": "nope"}, headers=AUTH), 400)
    assert "even-g1" in err["message"]  # lists the valid profiles
    s = session(client)
    assert_error(client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": ["x"]}, headers=AUTH), 422)
    assert_error(client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "   "}, headers=AUTH), 422)


def test_oversize_body_is_413(client):
    big = json.dumps([{"id": str(i), "title": "x" * 500} for i in range(3000)])
    assert_error(client.post("/v1/topics", content=big, headers={**AUTH, "Content-Type": "application/json"}), 413)


def test_unknown_ids_are_404(client):
    assert_error(client.get("/v1/topics/nope:nothing", headers=AUTH), 404)
    assert_error(client.post("/v1/sessions/s_missing/utterances", json={"text": "hi"}, headers=AUTH), 404)
    assert_error(client.get("/v1/sessions/s_missing/captions", headers=AUTH), 404)
    assert_error(client.get("/v1/nowhere", headers=AUTH), 404)


# -- topics -------------------------------------------------------------------------------
def test_topics_by_heat_and_filters(client):
    items = client.get("/v1/topics?limit=10", headers=AUTH).json()["items"]
    assert len(items) == 10
    heats = [i["heat"] or 0 for i in items]
    assert heats == sorted(heats, reverse=True)
    zh = client.get("/v1/topics?lang=zh&source=weibo&limit=5", headers=AUTH).json()["items"]
    assert zh and all(i["source"] == "weibo" and i["lang"] == "zh" for i in zh)


def test_ingested_topics_rank_like_fetched_ones(client):
    body = [{"id": "my-1", "title": "Quantum toaster reaches room temperature", "source": "mylab", "heat": 10},
            {"id": "my-2", "title": "家里的猫学会了开冰箱", "heat": 5}]
    r = client.post("/v1/topics", json=body, headers=AUTH)
    assert r.status_code == 201 and r.json()["ids"] == ["my-1", "my-2"]
    ranked = client.get("/v1/topics", params={"q": "quantum toaster room temperature"}, headers=AUTH).json()
    assert ranked["order"] == "relevance" and ranked["items"][0]["id"] == "my-1"
    one = client.get("/v1/topics/my-1", headers=AUTH).json()
    assert one["title"].startswith("Quantum") and len(one["history"]) == 1
    assert_error(client.post("/v1/topics", json=[{"title": "no id"}], headers=AUTH), 422)
    assert_error(client.post("/v1/topics", json={"id": "x"}, headers=AUTH), 422)


def test_topic_detail_has_history_and_cluster(client):
    first = client.get("/v1/topics?source=weibo&limit=1", headers=AUTH).json()["items"][0]
    detail = client.get(f"/v1/topics/{first['id']}", headers=AUTH).json()
    assert detail["history"][0]["heat"] == first["heat"]
    # the robot yangge story tops Toutiao, Zhihu and Douyin in the snapshot: one cluster across them
    story = client.get("/v1/topics", params={"q": "春晚机器人扭秧歌", "limit": 1}, headers=AUTH).json()["items"][0]
    cluster = client.get(f"/v1/topics/{story['id']}", headers=AUTH).json()["cluster"]
    assert cluster is not None and story["id"] in [m["id"] for m in cluster["members"]]
    assert {"toutiao", "zhihu", "douyin"} <= {m["source"] for m in cluster["members"]}


def test_sources_health(client):
    items = {s["name"]: s for s in client.get("/v1/sources", headers=AUTH).json()["items"]}
    assert items["weibo"]["status"] == "ok" and items["weibo"]["last_count"] > 0



# -- chat, lingzhu, digest ----------------------------------------------------------------------
def test_chat_completion_shape(client):
    r = client.post("/v1/chat/completions", headers=AUTH, json={
        "model": "trendlens", "messages": [{"role": "user", "content": "最近有什么关于春晚的热梗?"}]})
    body = r.json()
    assert r.status_code == 200 and body["object"] == "chat.completion"
    text = body["choices"][0]["message"]["content"]
    assert "热度" in text and "https://" in text
    assert_error(client.post("/v1/chat/completions", headers=AUTH, json={"messages": []}), 400)


def test_lingzhu_streams_answer_frames_and_done(client):
    r = client.post("/metis/agent/api/sse", headers=AUTH, json={
        "message_id": "m1", "agent_id": "a1",
        "message": [{"role": "user", "type": "text", "text": "最近有什么关于春晚的热梗"}],
        "metadata": {"lang": "zh", "battery": 80}})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = [e for e in r.text.split("\n\n") if e.strip() and not e.startswith(":")]
    every = [json.loads(e.split("data: ", 1)[1]) for e in events[:-1]]
    assert all(e.startswith("event: message") for e in events[:-1])
    assert events[-1] == "event: done\ndata: [DONE]"
    assert all(f["message_id"] == "m1" and f["agent_id"] == "a1" and f["role"] == "agent" for f in every)
    frames = [f for f in every if f["type"] == "answer"]
    assert [f["type"] for f in every] == ["answer"] * len(frames) + ["follow_up"] * (len(every) - len(frames))
    assert [f["is_finish"] for f in frames] == [False] * (len(frames) - 1) + [True]
    assert "春晚" in "".join(f["answer_stream"] for f in frames)


def test_hostile_titles_and_links_in_the_digest(client):
    assert client.post("/v1/topics", headers=AUTH, json=[
        {"id": "evil-1", "title": HOSTILE, "source": "weibo", "url": "https://weibo.com@evil.example/x",
         "heat": 9e9}]).status_code == 201
    assert_error(client.post("/v1/topics", headers=AUTH, json=[  # never stored: only http(s) links are
        {"id": "evil-2", "title": "javascript link", "source": "weibo", "url": "javascript:alert(1)", "heat": 8e9}]),
        422)
    page = client.get("/v1/digest?format=html&limit=50", headers=AUTH).text
    assert HOSTILE not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "evil.example" not in page and "javascript:" not in page
    md = client.get("/v1/digest?format=md&limit=50", headers=AUTH).text
    assert "<img" not in md and "evil.example" not in md
    data = client.get("/v1/digest?format=json", headers=AUTH).json()
    assert data["items"] and {"title", "platforms", "heat", "trend", "history"} <= set(data["items"][0])
    assert_error(client.get("/v1/digest?since=yesterday", headers=AUTH), 422)


# -- ops ----------------------------------------------------------------------------------------------
def test_health_ready_metrics(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    # the offline runtime serves made-up hot lists: that is never "ready"
    assert ready["status"] == "degraded" and ready["topics"] > 100 and ready["data"] == "synthetic demo snapshot"
    assert ready["reasons"] == ["replaying the synthetic demo snapshot, not live data (offline mode)"]
    s = session(client)
    client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "今年春晚的机器人扭秧歌你们看了吗"}, headers=AUTH)
    text = client.get("/metrics", headers=AUTH).text  # an admin key (or TRENDLENS_METRICS_TOKEN)
    assert "trendlens_caption_decisions_total{reason=" in text
    assert "trendlens_ranking_seconds_count 0" not in text and "trendlens_ranking_seconds_count" in text


def test_hud_page_is_one_static_page_and_its_socket_needs_the_session_token(client):
    from starlette.websockets import WebSocketDisconnect

    s = session(client)
    assert "#token=" in s["hud_url"]  # after '#': browsers never send it, so no server logs it
    page = client.get(f"/hud/{s['id']}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/hud/s_no_such_session").text == page.text  # says nothing about which sessions exist
    for offered in (["trendlens.hud"], ["trendlens.hud", "token.wrong"]):
        with pytest.raises(WebSocketDisconnect) as exc, \
                client.websocket_connect(f"/hud/{s['id']}/ws", subprotocols=offered) as ws:
            ws.receive_json()
        assert exc.value.code == 4404
    with client.websocket_connect(f"/hud/{s['id']}/ws", subprotocols=["trendlens.hud", f"token.{s['token']}"]) as ws:
        assert ws.receive_json() == {"type": "hello", "session_id": s["id"], "profile": "even-g1", "lines": 5,
                                     "width": 640, "height": 200}


def test_openapi_docs_are_served(client):
    spec = client.get("/openapi.json").json()
    for path in ("/v1/topics", "/v1/sessions", "/v1/chat/completions", "/metis/agent/api/sse", "/v1/digest"):
        assert path in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_evicted_sessions_come_back_from_the_store(store):
    from agent.live.sessions import SessionManager

    manager = SessionManager(store, max_live=2)
    first, token = manager.create("even-g1")
    for _ in range(3):
        manager.create("hud-web")
    assert len(manager) == 2
    again = manager.get(first.id)
    assert again is not None and again.profile == "even-g1" and again.check_token(token)
