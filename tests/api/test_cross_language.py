"""Questions asked in one language about lists in the other, on real recorded days.

The service holds the real Zhihu, Baidu, Douyin and V2EX lists of ../shared/upstream (two days,
harness/realdata.py) and the real English lists recorded there (Reddit's front page, GitHub
Trending), as fetched now. Each intent (hottest, a platform's top, a story, new or rising) is
asked in English about the Chinese lists and in Chinese about the English ones; each check is
what the asker would look for: the right items, platforms named in the asker's language, titles
in their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from agent.api import create_app
from agent.models import Topic
from harness.apps import AUTH, LiveServer
from harness.realdata import current_lists, need_upstream, real_runtime
from tests.answers.chat.test_intents_served import ask, ask_glasses, assert_glasses_style, named

ZH_SOURCES = ("zhihu", "baidu", "douyin", "v2ex")
EN_SOURCES = ("reddit", "github_trending")
EN_NAME = {"zhihu": "Zhihu", "baidu": "Baidu", "douyin": "Douyin", "v2ex": "V2EX"}
ZH_NAME = {"reddit": "Reddit", "github_trending": "GitHub"}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[LiveServer]:
    need_upstream(english=True)
    runtime = real_runtime(tmp_path_factory.mktemp("cross"), english=True)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        yield live


@pytest.fixture(scope="module")
def lists(server) -> dict[str, list[Topic]]:
    from agent.settings import Settings

    return current_lists(Settings(offline=True), english=True)


def every(lists: dict[str, list[Topic]], sources: tuple[str, ...]) -> list[Topic]:
    return [t for s in sources for t in lists[s]]


def words_around_titles(text: str, topics: list[Topic]) -> str:
    """The answer's own words: without the titles it names and their links (a search link holds its title)."""
    text = re.sub(r"https?://\S+", " ", text)
    for t in sorted(topics, key=lambda t: -len(t.title)):
        text = text.replace(t.title, " ")
    return text


ENGLISH_ABOUT_CHINESE = [
    "What's the biggest story in China today?",
    "What's trending in China right now?",
]


@pytest.mark.parametrize("question", ENGLISH_ABOUT_CHINESE)
def test_english_hottest_in_china_names_chinese_stories_in_english(server, lists, question):
    text = ask(server, question)
    picked = named(text, every(lists, ZH_SOURCES + EN_SOURCES))
    assert picked and all(t.source in ZH_SOURCES for t in picked), text
    assert picked[0].rank is not None and picked[0].rank <= 3, text  # the top of its own list
    around = words_around_titles(text, picked)
    assert not re.search(r"[\u4e00-\u9fff]", around), f"Chinese outside the titles: {text}"
    assert any(EN_NAME[t.source] in around for t in picked), text
    glasses = ask_glasses(server, [{"role": "user", "type": "text", "text": question}])
    assert_glasses_style(glasses)
    assert named(glasses, every(lists, ZH_SOURCES)) and not named(glasses, every(lists, EN_SOURCES)), glasses


@pytest.mark.parametrize(("question", "source"), [("What's number one on Zhihu?", "zhihu"),
                                                  ("What's the top of Douyin right now?", "douyin"),
                                                  ("What is trending on Baidu?", "baidu")])
def test_english_question_about_a_chinese_platform(server, lists, question, source):
    text = ask(server, question)
    mine = named(text, lists[source])
    assert mine and mine[0].rank == 1, text
    assert not named(text, every(lists, tuple(s for s in ZH_SOURCES + EN_SOURCES if s != source))), text
    assert EN_NAME[source] in text and not re.search(r"[\u4e00-\u9fff]", words_around_titles(text, mine)), text


@pytest.mark.parametrize(("question", "source", "rank"), [("What's the story with Baidu's number one?", "baidu", 1),
                                                          ("Why is Zhihu's #2 trending?", "zhihu", 2)])
def test_english_story_question_about_a_place_on_a_chinese_list(server, lists, question, source, rank):
    item = next(t for t in lists[source] if t.rank == rank)
    text = ask(server, question)
    assert item.title in text and f"{EN_NAME[source]} #{rank}" in text and "first seen" in text, text
    glasses = ask_glasses(server, [{"role": "user", "type": "text", "text": question}])
    assert f"number {rank} on {EN_NAME[source]}" in glasses, glasses
    assert_glasses_style(glasses)


def test_english_new_in_china_is_only_todays_chinese_lists(server, lists):
    text = ask(server, "What's new in China in the last few hours?")
    picked = named(text, every(lists, ZH_SOURCES + EN_SOURCES))
    assert picked and all(t.source in ("zhihu", "baidu", "v2ex") for t in picked), text  # Douyin's is a day old
    assert text.startswith("New or rising in the last 6 hours"), text


CHINESE_ABOUT_ENGLISH_HOTTEST = ["美国现在最火的是什么？", "国外最火的是什么"]


@pytest.mark.parametrize("question", CHINESE_ABOUT_ENGLISH_HOTTEST)
def test_chinese_hottest_abroad_names_english_stories_in_chinese(server, lists, question):
    text = ask(server, question)
    picked = named(text, every(lists, ZH_SOURCES + EN_SOURCES))
    assert picked and all(t.source in EN_SOURCES for t in picked), text
    assert "各平台" in text and any(f"{ZH_NAME[t.source]}第" in text for t in picked), text
    for t in picked:
        assert t.title in text  # the English title, as the platform wrote it


@pytest.mark.parametrize(("question", "source"), [("Reddit 第一是什么？", "reddit"),
                                                  ("GitHub 上什么最火？", "github_trending")])
def test_chinese_question_about_an_english_platform(server, lists, question, source):
    text = ask(server, question)
    mine = named(text, lists[source])
    assert mine and mine[0].rank == 1 and mine[0].title in text, text
    assert not named(text, every(lists, tuple(s for s in ZH_SOURCES + EN_SOURCES if s != source))), text
    assert ZH_NAME[source] in text and re.search(r"[\u4e00-\u9fff]", words_around_titles(text, mine)), text


def test_chinese_story_question_about_a_place_on_an_english_list(server, lists):
    first = lists["reddit"][0]
    text = ask(server, "Reddit 第一是怎么回事？")
    assert first.title in text and "Reddit第1" in text and "首次上榜" in text, text
    glasses = ask_glasses(server, [{"role": "user", "type": "text", "text": "Reddit 第一是怎么回事？"}])
    assert "Reddit排第1" in glasses, glasses


def test_chinese_new_abroad_is_only_the_english_lists(server, lists):
    text = ask(server, "国外最近几个小时有什么新上榜的？")
    picked = named(text, every(lists, ZH_SOURCES + EN_SOURCES))
    assert picked and all(t.source in EN_SOURCES for t in picked), text
    assert text.startswith("最近6小时"), text


# -- follow-up suggestions on the real lists: each one is a question this chat answers -----------------
def glasses_turn(server: LiveServer, *texts: str) -> tuple[str, list[str]]:
    roles = ["user", "agent"] * len(texts)
    r = httpx.post(server.url + "/metis/agent/api/sse", headers=AUTH, timeout=60, json={
        "message_id": "m1", "agent_id": "a1",
        "message": [{"role": ro, "type": "text", "text": t} for ro, t in zip(roles, texts, strict=False)]})
    frames = [json.loads(b.split("data: ", 1)[1]) for b in r.text.split("\n\n") if b.startswith("event: message")]
    text = "".join(f["answer_stream"] for f in frames if f["type"] == "answer")
    return text, [s for f in frames if f["type"] == "follow_up" for s in f["follow_up"]]


@pytest.mark.parametrize("question", ["What's the biggest story in China today?", "知乎上现在什么最火？",
                                      "Reddit 第一是怎么回事？", "What's new in China in the last few hours?",
                                      "中方回应美对华加征245%关税是怎么回事？"])
def test_follow_ups_on_the_real_lists_are_answered(server, lists, question):
    said, suggested = glasses_turn(server, question)
    assert 1 <= len(suggested) <= 3, suggested
    listed = {s for s, items in lists.items() if items}
    for suggestion in suggested:
        reply, _ = glasses_turn(server, question, said, suggestion)
        assert named(reply, every(lists, tuple(listed))), f"{suggestion!r} → {reply!r}"
