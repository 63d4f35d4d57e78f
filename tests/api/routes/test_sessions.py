"""`/v1/sessions`: an utterance in, captions and the decision out, over HTTP and the session's stream."""

from __future__ import annotations

import pytest

from harness.apps import AUTH
from tests.api.helpers import session


def test_session_utterance_caption_and_decision_record(client):
    s = session(client)
    assert s["token"] and s["hud_url"].endswith(s["token"])
    r = client.post(f"/v1/sessions/{s['id']}/utterances",
                    json={"text": "今年春晚的机器人扭秧歌你们看了吗", "final": True},
                    headers=AUTH)
    assert r.status_code == 200
    body = r.json()
    assert body["decision"]["show"] and body["decision"]["reason"] == "shown"
    assert len(body["captions"]) == 1
    cap = body["captions"][0]
    assert {"topic_id", "text", "lines", "score", "source", "ttl_ms"} <= set(cap)
    assert cap["lines"][0] == "春晚机器人扭秧歌"
    assert cap["text"] == "\n".join(cap["lines"]) and len(cap["lines"]) <= 5
    history = client.get(f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"]
    # the decision is kept, the words are not (TRENDLENS_KEEP_UTTERANCES_DAYS is 0 by default)
    assert history[-1]["decision"]["utterance"] is None
    assert history[-1]["decision"]["chars"] == len("今年春晚的机器人扭秧歌你们看了吗")


def test_partial_transcripts_never_caption(client):
    s = session(client)
    r = client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚机器人扭秧歌", "final": False},
                    headers=AUTH)
    assert r.json() == {"captions": [], "decision": None, "warning": None}


def test_huge_utterance_is_truncated_with_a_warning(client):
    s = session(client)
    r = client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": "春晚 " * 30000}, headers=AUTH)
    assert r.status_code == 200 and "truncated" in r.json()["warning"]


def test_websocket_stream(client):
    s = session(client)
    with client.websocket_connect(f"/v1/sessions/{s['id']}/stream", headers=dict(AUTH)) as ws:
        ws.send_text("not json")
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "utterance", "text": "", "final": True})
        assert "empty" in ws.receive_json()["message"]
        ws.send_json({"type": "utterance", "text": "春晚机器人扭秧歌太好笑了", "final": True})
        frames = []
        while not frames or frames[-1]["type"] != "decision":
            frames.append(ws.receive_json())
        assert [f["type"] for f in frames] == ["caption", "decision"]
        assert frames[0]["lines"][0] == "春晚机器人扭秧歌" and frames[-1]["decision"]["show"]


def test_websocket_stream_also_carries_captions_made_elsewhere_once_each(client):
    s = session(client)
    with client.websocket_connect(f"/v1/sessions/{s['id']}/stream", headers=dict(AUTH)) as ws:
        # the session is spoken to over HTTP (say, a phone beside the glasses): the socket shows it too
        said = client.post(f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                           json={"text": "春晚机器人扭秧歌太好笑了"}).json()
        assert said["captions"]
        frames: list[dict] = []
        for _ in range(3):  # a partial utterance is always answered, so this read cannot hang
            ws.send_json({"type": "utterance", "text": "hello there", "final": False})
            while not frames or frames[-1]["type"] != "decision":
                frames.append(ws.receive_json())
            frames.append({"type": "-"})
        captions = [f for f in frames if f["type"] == "caption"]
        assert [c["text"] for c in captions] == [said["captions"][0]["text"]]  # arrived, and once
    other = session(client)
    with client.websocket_connect(f"/v1/sessions/{other['id']}/stream", headers=dict(AUTH)) as ws:
        # its own utterance: one caption frame (not a second copy from the feed), then the decision
        ws.send_json({"type": "utterance", "text": "春晚机器人扭秧歌太好笑了", "final": True})
        frames = []
        while not frames or frames[-1]["type"] != "decision":
            frames.append(ws.receive_json())
        assert [f["type"] for f in frames] == ["caption", "decision"]
        ws.send_json({"type": "utterance", "text": "hello there", "final": False})
        assert ws.receive_json()["type"] == "decision"  # no late duplicate of the caption before it


def test_websocket_refuses_without_credentials(client):
    from starlette.websockets import WebSocketDisconnect

    s = session(client)
    with pytest.raises(WebSocketDisconnect) as exc, client.websocket_connect(f"/v1/sessions/{s['id']}/stream") as ws:
        ws.receive_json()
    assert exc.value.code == 4401

