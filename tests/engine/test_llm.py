"""An OpenAI-compatible LLM words answers and glosses when configured; any failure falls back to templates."""

from __future__ import annotations

import json

import httpx
import pytest

from agent.answers.chat import answer_question
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings


def llm(reply: str | None, seen: list[dict]):
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        assert request.url.path == "/v1/chat/completions"
        assert request.headers["Authorization"] == "Bearer sk-test"
        if reply is None:
            return httpx.Response(500, json={"error": "down"})
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": reply}}]})

    return handler


@pytest.fixture
async def started(tmp_path):
    """A started runtime whose LLM requests go to `handler`."""
    made: list[Runtime] = []

    async def start(handler) -> Runtime:
        settings = Settings(data_dir=tmp_path, offline=True, llm_base_url="http://llm.test/v1", llm_api_key="sk-test")
        rt = Runtime.build(settings, embedder=HashEmbedder(),
                           llm_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
        made.append(rt)
        await rt.collector.cycle()
        await rt.start()
        return rt

    yield start
    for rt in made:
        await rt.aclose()


async def test_chat_is_worded_by_the_llm_and_grounded_in_topics(started):
    seen: list[dict] = []
    runtime = await started(llm("春晚机器人扭秧歌最火。", seen))
    answer = await answer_question(runtime.deps, "最近有什么关于春晚的热梗?")
    assert answer.text == "春晚机器人扭秧歌最火。"
    system = seen[0]["messages"][0]["content"]
    assert "ONLY these facts" in system and "热度" in system  # the grounded template went along


async def test_llm_failure_falls_back_to_the_template(started):
    runtime = await started(llm(None, []))
    answer = await answer_question(runtime.deps, "最近有什么关于春晚的热梗?")
    assert answer.text.startswith("最近的相关热点：") and "热度" in answer.text


async def test_summarize_step_adds_the_gloss_to_the_caption(started, tmp_path):
    runtime = await started(llm("宇树机器人春晚扭秧歌", []))
    folder = tmp_path / "wf"
    folder.mkdir()
    (folder / "w.yaml").write_text("name: glossed\ntrigger: {event: utterance}\nsteps:\n  - rank: {latest_top_k: 0}\n"
                                   "  - gate\n  - caption\n  - summarize\n", encoding="utf-8")
    from agent.engine.runner import WorkflowEngine
    from agent.engine.values import Said

    engine = WorkflowEngine(runtime.deps, folder)
    session, _ = runtime.sessions.create("hud-web")
    session.window.add("春晚机器人扭秧歌太好笑了")
    session.gate.hear("春晚机器人扭秧歌太好笑了")
    session.gate.policy = type(session.gate.policy)(relevance_offset=-10)
    record = await engine.run("glossed", value=Said(session, "春晚机器人扭秧歌太好笑了", 0.0))
    assert record.status == "ok", record.public()
    assert record.steps[-1].detail == "summarized"
    assert "宇树机器人春晚扭秧歌" in record.result.caption.text


@pytest.mark.parametrize(("question", "gloss"), [
    ("What's the hottest thing on Weibo?", "English gloss"),  # English asker, Chinese titles: glossed
    ("微博上什么最火？", None),  # Chinese asker, Chinese titles: nothing to gloss
    ("Hacker News 上什么最火？", "Chinese gloss"),  # Chinese asker, English titles
    ("What's on Hacker News?", None)])
async def test_the_llm_glosses_titles_only_in_the_other_language(started, question, gloss):
    seen: list[dict] = []
    runtime = await started(llm("worded", seen))
    await answer_question(runtime.deps, question)
    system = seen[0]["messages"][0]["content"]
    assert "Keep every title exactly as written" in system
    if gloss:
        assert f"add a short {gloss} of it in parentheses" in system, system
    else:
        assert "gloss" not in system, system
