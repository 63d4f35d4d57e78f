"""The Rokid Lingzhu protocol as the glasses speak it, against the service on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx

from agent.api import create_app
from tests.api.conftest import AUTH, LiveServer, make_runtime

URL = "/metis/agent/api/sse"


def frames(text: str, kind: str = "answer") -> list[dict]:
    """The `event: message` frames of one type: the answer's pieces, or the follow-up suggestions."""
    every = [json.loads(b.split("data: ", 1)[1]) for b in text.split("\n\n") if b.startswith("event: message")]
    return [f for f in every if f["type"] == kind]


def answer(text: str) -> str:
    return "".join(f["answer_stream"] for f in frames(text))


def test_an_image_only_turn_is_answered_over_sse_in_words(live_server):
    image = {"role": "user", "type": "image", "image_url": "https://example.com/photo.jpg"}
    r = httpx.post(live_server.url + URL, headers=AUTH, timeout=30,
                   json={"message_id": "m1", "agent_id": "a1", "message": [image]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert "图片" in answer(r.text) and r.text.rstrip().endswith("data: [DONE]")
    r = httpx.post(live_server.url + URL, headers=AUTH, timeout=30,
                   json={"message_id": "m2", "agent_id": "a1", "message": [image], "metadata": {"lang": "en-US"}})
    assert "images" in answer(r.text)


def test_metadata_null_and_agent_turns_are_accepted(live_server):
    r = httpx.post(live_server.url + URL, headers=AUTH, timeout=30, json={
        "message_id": "m1", "agent_id": "a1", "metadata": None,
        "message": [{"role": "user", "type": "text", "text": "hi"},
                    {"role": "agent", "type": "text", "text": "你好！"},
                    {"role": "user", "type": "text", "text": "最近有什么关于春晚的热梗"}]})
    assert r.status_code == 200 and "春晚" in answer(r.text)
    assert [f["is_finish"] for f in frames(r.text)][-1] is True


def test_a_conversation_without_a_user_turn_is_a_clear_4xx(live_server):
    r = httpx.post(live_server.url + URL, headers=AUTH, timeout=30, json={
        "message_id": "m1", "agent_id": "a1", "message": [{"role": "agent", "type": "text", "text": "hello"}]})
    assert r.status_code == 422 and "role=user" in r.json()["error"]["message"]


def test_ok_at_once_then_keep_alives_while_a_slow_llm_words_the_answer(tmp_path: Path):
    async def slow_llm(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(2.2)
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant",
                                                                  "content": "春晚机器人最火。https://x.example"}}]})

    runtime = make_runtime(tmp_path / "d", llm_base_url="http://llm.test/v1", llm_api_key="sk-test")
    runtime.llm_client = httpx.AsyncClient(transport=httpx.MockTransport(slow_llm))
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live, httpx.stream(
            "POST", live.url + URL, headers=AUTH, timeout=30,
            json={"message_id": "m1", "agent_id": "a1",
                  "message": [{"role": "user", "type": "text", "text": "最近有什么关于春晚的热梗"}]}) as r:
        lines = [line for line in r.iter_lines() if line]
    assert lines[0] == ":ok"
    first_frame = next(i for i, line in enumerate(lines) if line.startswith("event: message"))
    keep_alives = [line for line in lines[1:first_frame] if line.startswith(":")]
    assert len(keep_alives) >= 3 and len(keep_alives) == first_frame - 1  # nothing else while it thinks
    text = "".join(f.get("answer_stream", "") for f in (json.loads(line[6:]) for line in lines
                                                          if line.startswith("data: {")))
    assert text == "春晚机器人最火。"  # the LLM's wording, without its link: the glasses show no links
