"""The Rokid Lingzhu protocol as the glasses speak it, against the service on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent.api import create_app
from harness.apps import AUTH, KEY, LiveServer, make_runtime

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

    runtime = make_runtime(tmp_path / "d", llm_base_url="http://llm.test/v1", llm_api_key="sk-test",
                           llm_client=httpx.AsyncClient(transport=httpx.MockTransport(slow_llm)))
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


# -- the bridges' health probe, follow-up suggestions, and manners -----------------------------------
@pytest.fixture(scope="module")
def glasses_server(tmp_path_factory) -> Iterator[LiveServer]:
    runtime = make_runtime(tmp_path_factory.mktemp("lingzhu"))
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        yield live


def ask(server: LiveServer, *texts: str) -> httpx.Response:
    """One Lingzhu request: `texts` alternate user and agent turns, the last one the user's question."""
    roles = ["user", "agent"] * len(texts)
    message = [{"role": role, "type": "text", "text": text} for role, text in zip(roles, texts, strict=False)]
    r = httpx.post(server.url + URL, headers=AUTH, timeout=30,
                   json={"message_id": "m1", "agent_id": "a1", "message": message})
    assert r.status_code == 200, r.text
    return r


def follow_ups(text: str) -> list[str]:
    found = frames(text, "follow_up")
    assert len(found) <= 1
    return found[0]["follow_up"] if found else []


NOT_ANSWERED = ("没有找到", "found nothing", "没听出", "couldn't tell", "没有第", "has no number", "现在没有",
                "I have no current")


def test_health_answers_the_platforms_probe_without_a_key(glasses_server):
    r = httpx.get(glasses_server.url + "/metis/agent/api/health", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["ok"] is True and body["endpoint"] == URL and body["topics"] > 0
    assert body["followUpEnabled"] is True and body["followUpMaxCount"] == 3


@pytest.mark.parametrize("question", ["知乎上现在什么最火？", "今天最火的是什么？", "What's trending right now?",
                                      "春晚机器人扭秧歌是怎么回事", "最近几个小时有什么新上榜的？",
                                      "微博热搜第一是什么", "What's number one on Hacker News?", "你能做什么？"])
def test_after_an_answer_up_to_three_follow_ups_that_the_chat_answers(glasses_server, question):
    r = ask(glasses_server, question)
    blocks = [b for b in r.text.split("\n\n") if b.startswith("event:")]
    kinds = [json.loads(b.split("data: ", 1)[1]).get("type") if b.startswith("event: message") else "done"
             for b in blocks]
    assert kinds[-2:] == ["follow_up", "done"] and kinds.count("follow_up") == 1, kinds
    frame = frames(r.text, "follow_up")[0]
    assert frame["role"] == "agent" and frame["is_finish"] is True
    assert frame["message_id"] == "m1" and frame["agent_id"] == "a1"
    suggested = frame["follow_up"]
    assert 1 <= len(suggested) <= 3 and len(set(suggested)) == len(suggested), suggested
    said = answer(r.text)
    for suggestion in suggested:
        assert len(suggestion) <= 40, suggestion  # a chip on the glasses, not a paragraph
        reply = answer(ask(glasses_server, question, said, suggestion).text)
        assert reply and not any(m in reply for m in NOT_ANSWERED), f"{suggestion!r} → {reply!r}"
        assert "热梗透视镜" not in reply and "TrendLens" not in reply, f"{suggestion!r} read as small talk"


@pytest.mark.parametrize(("said", "expect", "follow"), [
    ("你好", "热梗透视镜", True), ("ping", "TrendLens", True), ("hi there!", "TrendLens", True),
    ("你能做什么？", "某个平台的热榜", True), ("What can you do?", "what's new", True),
    ("谢谢", "不客气", False), ("thank you!", "welcome", False)])
def test_greetings_help_and_thanks_get_manners_not_a_list(glasses_server, said, expect, follow):
    r = ask(glasses_server, said)
    text = answer(r.text)
    assert expect in text and "\n" not in text and "第1" not in text and "#1" not in text, text
    assert bool(follow_ups(r.text)) is follow
    if follow:
        asked = " ".join(follow_ups(r.text))
        assert ("最火" in asked) if re.search(r"[\u4e00-\u9fff]", said) else ("trending" in asked), asked


@pytest.mark.parametrize(("said", "expect"), [("你好", "热梗透视镜"),
                                              ("What can you do?", "why something is trending")])
def test_the_chat_api_has_the_same_manners(glasses_server, said, expect):
    import openai

    client = openai.OpenAI(base_url=glasses_server.url + "/v1", api_key=KEY, max_retries=0, timeout=30)
    text = client.chat.completions.create(model="trendlens", messages=[{"role": "user", "content": said}]
                                          ).choices[0].message.content or ""
    assert expect in text and "http" not in text, text
