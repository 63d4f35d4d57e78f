"""Questions people ask, asked of a service holding real hot lists, through the openai client and Lingzhu.

The lists are the real Zhihu, Baidu, Douyin and V2EX recordings in ../shared/upstream, parsed
by our own parsers (see harness/realdata.py). Each row is a question a person would ask;
each check is what that person would look for in the answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import openai
import pytest

from agent.answers.chat.facts import short_title
from agent.api import create_app
from agent.models import Topic
from harness.apps import AUTH, KEY, LiveServer
from harness.realdata import current_lists, need_upstream, real_runtime

ZH_NAME = {"zhihu": "知乎", "baidu": "百度", "douyin": "抖音", "v2ex": "V2EX"}
EN_NAME = {"zhihu": "Zhihu", "baidu": "Baidu", "douyin": "Douyin", "v2ex": "V2EX"}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LiveServer]:
    need_upstream()
    runtime = real_runtime(tmp_path_factory.mktemp("real"))
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        yield live


@pytest.fixture(scope="module")
def lists(server) -> dict[str, list[Topic]]:
    from agent.settings import Settings

    return current_lists(Settings(offline=True))


def ask(server: LiveServer, question: str, history: list[dict] | None = None) -> str:
    client = openai.OpenAI(base_url=server.url + "/v1", api_key=KEY, max_retries=0, timeout=60)
    reply = client.chat.completions.create(model="trendlens",
                                           messages=[*(history or []), {"role": "user", "content": question}])
    return reply.choices[0].message.content or ""


def ask_glasses(server: LiveServer, message: list[dict], metadata: dict | None = None) -> str:
    r = httpx.post(server.url + "/metis/agent/api/sse", headers=AUTH, timeout=60,
                   json={"message_id": "m1", "agent_id": "a1", "message": message, "metadata": metadata})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream"), r.text
    frames = [json.loads(block.split("data: ", 1)[1]) for block in r.text.split("\n\n")
              if block.startswith("event: message")]
    frames = [f for f in frames if f["type"] == "answer"]
    assert frames and frames[-1]["is_finish"] is True
    return "".join(f["answer_stream"] for f in frames)


def said(text: str, topic: Topic) -> int:
    """Where the answer names this topic (its title's opening words are enough on the glasses), or -1."""
    return text.find(topic.title[:8])


def named(text: str, topics: list[Topic]) -> list[Topic]:
    """The topics of a list that the answer names, in the order it names them."""
    found = sorted((said(text, t), t.rank or 0, t) for t in topics if said(text, t) >= 0)
    return [t for _, _, t in found]


def others(lists: dict[str, list[Topic]], source: str) -> list[Topic]:
    mine = {t.title[:8] for t in lists[source]}
    return [t for s, items in lists.items() if s != source for t in items if t.title[:8] not in mine]


def assert_glasses_style(text: str) -> None:
    assert "http" not in text and "#" not in text and "\n" not in text, text


# -- a platform's list, or its #1 ------------------------------------------------------------------
PLATFORM_QUESTIONS = [
    ("知乎上现在什么最火？", "zhihu", False, "zh"),
    ("What is trending on Zhihu right now?", "zhihu", False, "en"),
    ("What is trending on V2EX today?", "v2ex", False, "en"),
    ("V2EX 上大家在聊什么？", "v2ex", False, "zh"),
    ("百度热搜第一是什么？", "baidu", True, "zh"),
    ("What's number one on Baidu?", "baidu", True, "en"),
    ("抖音热搜第一", "douyin", True, "zh"),
    ("what's on Douyin", "douyin", False, "en"),
]


@pytest.mark.parametrize(("question", "source", "top_only", "lang"), PLATFORM_QUESTIONS)
def test_a_platform_question_answers_with_that_platform_in_its_own_order(server, lists, question, source, top_only,
                                                                         lang):
    for style, text in (("chat", ask(server, question)),
                        ("glasses", ask_glasses(server, [{"role": "user", "type": "text", "text": question}]))):
        mine = named(text, lists[source])
        assert mine, f"{style}: {text}"
        ranks = [t.rank for t in mine]
        assert ranks[0] == 1 and ranks == sorted(ranks), f"{style}: {ranks} {text}"
        if top_only:
            assert ranks == [1], text
        assert not named(text, others(lists, source)), f"{style}: another platform answered: {text}"
        assert (ZH_NAME if lang == "zh" else EN_NAME)[source] in text
        if lang == "en":  # an English answer: Chinese titles stay Chinese, the words around them do not
            words = text
            for t in mine:
                words = words.replace(t.title, "").replace(short_title(t.title), "")
            assert "热度" not in words and "第" not in words and "知乎" not in words, text
        if style == "glasses":
            assert_glasses_style(text)
            assert len(mine) <= 2


# -- the hottest across platforms --------------------------------------------------------------------
@pytest.mark.parametrize(("question", "lang"), [("今天最火的是什么？", "zh"),
                                               ("What's the hottest thing right now?", "en")])
def test_hottest_spans_platforms(server, lists, question, lang):
    text = ask(server, question)
    every = [t for items in lists.values() for t in items]
    picked = named(text, every)
    assert len({t.source for t in picked}) >= 2, text
    # tops of their own lists, or one story on several lists (a story on two lists outranks a #1 on one)
    lines = text.splitlines()[1:3]
    mark = "第" if lang == "zh" else " #"
    assert all(t.rank is not None and (t.rank <= 3 or line.count(mark) >= 2)
               for t, line in zip(picked[:2], lines, strict=True)), text
    assert ("各平台" in text) if lang == "zh" else ("across platforms" in text)
    glasses = ask_glasses(server, [{"role": "user", "type": "text", "text": question}])
    assert_glasses_style(glasses)
    assert 1 <= len(named(glasses, every)) <= 2


def test_hottest_does_not_follow_one_platforms_heat_scale(tmp_path):
    """Douyin's heat multiplied by 1000 must not change what is hottest: heat is compared within each list."""
    need_upstream()
    from fastapi.testclient import TestClient

    firsts = []
    for n, scale in enumerate(({}, {"douyin": 1000.0})):
        runtime = real_runtime(tmp_path / str(n), heat_scale=scale)
        with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
            r = c.post("/v1/chat/completions", headers=AUTH,
                       json={"messages": [{"role": "user", "content": "今天最火的是什么？"}]})
            first_line = r.json()["choices"][0]["message"]["content"].splitlines()[1]
            firsts.append(first_line.split(" — ")[0])
    assert firsts[0] == firsts[1]


# -- a story -----------------------------------------------------------------------------------------------
def test_a_story_question_tells_platforms_ranks_trend_and_first_appearance(server):
    # on Baidu both days: #6 yesterday, #7 today, heat down
    zh = ask(server, "反网络霸权 网警在行动是怎么回事")
    assert "反网络霸权 网警在行动" in zh and "百度第7" in zh and "在降" in zh and "20小时前首次上榜" in zh, zh
    en = ask(server, "why is 反网络霸权 网警在行动 trending?")
    assert "反网络霸权 网警在行动" in en and "Baidu #7" in en and "cooling" in en, en
    assert "first seen 20 hours ago" in en, en
    glasses = ask_glasses(server, [{"role": "user", "type": "text", "text": "why is 反网络霸权 网警在行动 trending?"}])
    assert "number 7 on Baidu" in glasses and "20 hours ago" in glasses, glasses
    assert_glasses_style(glasses)


def test_a_story_on_two_platforms_names_both(server):
    text = ask(server, "中方回应美对华加征245%关税是怎么回事？")
    assert "知乎第1" in text and "百度第3" in text, text


# -- new or rising --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("question", ["最近几个小时有什么新上榜的？", "What's new in the last few hours?"])
def test_new_and_rising_is_only_what_appeared_lately(server, lists, question):
    text = ask(server, question)
    today = [t for s in ("zhihu", "baidu", "v2ex") for t in lists[s] if not t.title.startswith("反网络霸权")]
    assert named(text, today), text
    assert not named(text, lists["douyin"]), f"Douyin's list is a day old: {text}"
    assert "反网络霸权" not in text  # listed both days, and falling
    glasses = ask_glasses(server, [{"role": "user", "type": "text", "text": question}])
    assert_glasses_style(glasses)
    assert not named(glasses, lists["douyin"])


# -- follow-ups ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("first", "follow_up", "expect"), [
    ("知乎上现在什么最火？", "第二个是怎么回事？", "知乎第2"),
    ("What is trending on Zhihu right now?", "tell me about the second one", "Zhihu #2"),
    ("What is trending on Zhihu right now?", "and the first one?", "Zhihu #1"),
])
def test_a_follow_up_uses_the_earlier_answer(server, lists, first, follow_up, expect):
    earlier = ask(server, first)
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": earlier}]
    text = ask(server, follow_up, history)
    position = int(expect[-1])
    assert said(text, lists["zhihu"][position - 1]) >= 0 and expect in text, text
    assert said(text, lists["zhihu"][2 - position]) < 0, text  # the other one is not what was asked about


def test_that_one_points_at_the_story_named_before(server, lists):
    earlier = ask(server, "今天最火的是什么？")
    text = ask(server, "那个关税是怎么回事？", [{"role": "user", "content": "今天最火的是什么？"},
                                            {"role": "assistant", "content": earlier}])
    assert "关税" in text and "首次上榜" in text, text
    lead = next(t for t in named(earlier, [t for v in lists.values() for t in v]) if "关税" in t.title)
    assert said(text, lead) >= 0


def test_style_glasses_on_the_chat_api(server, lists):
    client = openai.OpenAI(base_url=server.url + "/v1", api_key=KEY, max_retries=0, timeout=60)
    reply = client.chat.completions.create(model="trendlens", extra_body={"style": "glasses"},
                                           messages=[{"role": "user", "content": "知乎上现在什么最火？"}])
    text = reply.choices[0].message.content or ""
    assert_glasses_style(text)
    assert [t.rank for t in named(text, lists["zhihu"])] == [1, 2] and "知乎" in text


def test_lingzhu_follow_up_uses_earlier_turns_of_message(server, lists):
    first = {"role": "user", "type": "text", "text": "知乎上现在什么最火？"}
    earlier = ask_glasses(server, [first])
    text = ask_glasses(server, [first, {"role": "agent", "type": "text", "text": earlier},
                                {"role": "user", "type": "text", "text": "第二个是怎么回事？"}])
    assert said(text, lists["zhihu"][1]) >= 0 and "知乎排第2" in text, text
    assert_glasses_style(text)


def test_lingzhu_answers_the_last_user_item_not_the_whole_conversation(server, lists):
    text = ask_glasses(server, [
        {"role": "user", "type": "text", "text": "百度热搜第一是什么？"},
        {"role": "agent", "type": "text", "text": "百度第1是「特朗普听故宫三原色道理后懵了」。"},
        {"role": "user", "type": "text", "text": "知乎上现在什么最火？"}], metadata=None)
    assert said(text, lists["zhihu"][0]) >= 0 and not named(text, lists["baidu"]), text
