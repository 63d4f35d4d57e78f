"""A stream socket's frames are read as the utterance route reads its body: one model, one outcome."""

from __future__ import annotations

import pytest

from harness.apps import AUTH

LINE = "春晚机器人扭秧歌太好笑了"


def said_over_http(client, body: dict) -> tuple[int, dict]:
    s = client.post("/v1/sessions", json={}, headers=AUTH).json()
    r = client.post(f"/v1/sessions/{s['id']}/utterances", json=body, headers=AUTH)
    return r.status_code, r.json()


def said_over_the_socket(client, frames: list[dict]) -> list[dict]:
    """The answer to each frame: its decision frame, or its error frame."""
    s = client.post("/v1/sessions", json={}, headers=AUTH).json()
    answers = []
    with client.websocket_connect(f"/v1/sessions/{s['id']}/stream", headers=dict(AUTH)) as ws:
        for frame in frames:
            ws.send_json({"type": "utterance", **frame})
            got = ws.receive_json()
            while got["type"] not in ("decision", "error"):
                got = ws.receive_json()
            answers.append(got)
    return answers


@pytest.mark.parametrize("final", ["false", False, 0])
def test_a_frame_saying_final_false_is_not_final_as_over_http(client, final):
    status, body = said_over_http(client, {"text": LINE, "final": final})
    [answer] = said_over_the_socket(client, [{"text": LINE, "final": final}])
    assert status == 200 and answer["type"] == "decision"
    # an utterance still being spoken is heard, not decided on: no decision and no caption, on either path
    assert answer["decision"] is None and body["decision"] is None and not body["captions"]
    _, final_body = said_over_http(client, {"text": LINE, "final": True})
    assert final_body["captions"]


@pytest.mark.parametrize("frame", [{"text": LINE, "final": "maybe"}, {"final": True}, {"text": LINE, "lang": "zh"}])
def test_a_frame_the_route_refuses_is_answered_with_its_message_and_the_socket_stays_open(client, frame):
    status, body = said_over_http(client, frame)
    refused, after = said_over_the_socket(client, [frame, {"text": LINE, "final": True}])
    assert status == 422 and refused == {"type": "error", "message": body["error"]["message"]}
    assert "\n" not in refused["message"] and after["type"] == "decision" and after["decision"]["show"]
