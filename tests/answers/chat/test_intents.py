"""The intent table: questions as people type or say them, in both languages, and what each asks for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.answers.chat.hottest import hottest
from agent.answers.chat.intents import FollowUp, Intent, PlatformList, Search, SmallTalk, detect_intent, question_lang
from agent.models import Topic
from harness.intent_table import FOLLOW_UPS, TABLE


@pytest.mark.parametrize(("question", "intent"), TABLE)
def test_the_question_table(question, intent):
    got = detect_intent(question)
    if isinstance(intent, Search):
        assert isinstance(got, Search) and got.subject == intent.subject, got
    else:
        assert got == intent


@pytest.mark.parametrize(("question", "intent"), FOLLOW_UPS)
def test_follow_ups_need_an_earlier_turn(question, intent):
    assert detect_intent(question, has_history=True) == intent
    assert not isinstance(detect_intent(question), FollowUp)


def test_a_named_platform_is_not_a_follow_up():
    assert detect_intent("what about Baidu?", has_history=True) == PlatformList(source="baidu")


@pytest.mark.parametrize(("question", "lang"), [
    ("知乎上现在什么最火？", "zh"), ("What is trending on Zhihu right now?", "en"),
    ("why is 哈尔滨公安悬赏通缉3名美国特工 trending?", "en"), ("V2EX 上大家在聊什么？", "zh"), ("GPT-5 怎么了", "zh")])
def test_the_answer_language_is_the_askers(question, lang):
    assert question_lang(question) == lang


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_any_text_has_an_intent(text, has_history):
    intent = detect_intent(text, has_history=has_history)
    assert isinstance(intent, Intent)
    # a follow-up needs an earlier turn to resolve against
    assert has_history or not isinstance(intent, FollowUp)
    assert question_lang(text) in ("zh", "en")


def test_hottest_compares_places_not_raw_heat():
    big = [Topic(source="douyin", item_id=str(i), title=f"抖音话题{i}", rank=i, heat=1e9 / i) for i in range(1, 51)]
    small = [Topic(source="v2ex", item_id=str(i), title=f"V2EX topic {i}", rank=i, heat=100 / i) for i in range(1, 11)]
    titles = [s.lead.title for s in hottest(big + small, {}, limit=6)]
    # places, not heat: V2EX's #1 sits among Douyin's top five although its heat is ten million times smaller;
    # a #1 of 10 has beaten fewer rivals than Douyin's #4 of 50 (ranking.fair_heat's formula)
    assert titles[0] == "抖音话题1"
    assert titles[:6] == ["抖音话题1", "抖音话题2", "抖音话题3", "抖音话题4", "V2EX topic 1", "抖音话题5"]
    # a billion times the heat on one platform changes nothing
    louder = [t.model_copy(update={"heat": (t.heat or 0) * 1e9}) for t in small]
    assert [s.lead.id for s in hottest(big + louder, {}, limit=6)] == [s.lead.id for s in hottest(big + small, {},
                                                                                                  limit=6)]


@pytest.mark.parametrize(("question", "intent"), [row for row in TABLE if not isinstance(row[1], SmallTalk)])
def test_courtesy_around_a_question_changes_nothing(question, intent):
    if question_lang(question) == "zh":
        wrapped = (f"你好，{question}", f"{question}，谢谢", f"您好！{question}")
    else:
        wrapped = (f"Hi, {question}", f"{question}, thanks", f"hello there! {question}")
    for said in wrapped:
        assert detect_intent(said) == detect_intent(question), said
