"""Greetings and customs said as such get no caption; asked about, they do."""

from __future__ import annotations

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker, RankQuery
from agent.ranking.everyday import asks, only_everyday, vocabulary
from agent.ranking.window import ConversationWindow

from .conftest import relevance_query

# Synthetic list entries (written here): a greeting hashtag, a custom, and a real meme beside them.
ENTRIES = [("douyin", "g", "对你说新年快乐"), ("weibo", "c", "开始放烟花了"), ("weibo", "m", "主持人扑克牌穿帮"),
           ("baidu", "r", "儿子跪着讨要新年红包")]


def test_the_sample_knows_greetings_in_both_languages() -> None:
    words = vocabulary()
    assert {"新年", "快乐", "烟花", "饺子", "happy", "year"} <= words


def test_a_toast_or_a_custom_said_at_the_table_is_not_about_the_entry() -> None:
    assert only_everyday("来，祝大家新年快乐，身体健康！", "对你说新年快乐")
    assert only_everyday("外面开始放烟花了，带孩子去看看。", "开始放烟花了")
    assert only_everyday("Happy New Year everyone!", "对你说新年快乐")  # matched by meaning alone
    assert only_everyday("今年红包我给俩小的一人包了一千", "儿子跪着讨要新年红包")  # 年红 is a seam, not a word


def test_asking_about_it_or_naming_what_happened_is_news() -> None:
    asked = "对你说新年快乐那个视频是什么？"
    assert asks(asked) and not only_everyday(asked, "对你说新年快乐")
    assert not only_everyday("听说有个儿子跪着要红包", "儿子跪着讨要新年红包")
    assert not only_everyday("主持人的扑克牌穿帮了哈哈", "主持人扑克牌穿帮")


async def test_the_live_gate_drops_a_greeting_and_keeps_the_meme() -> None:
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in ENTRIES])
    toast = await ranker.rank(relevance_query("祝大家新年快乐", top_k=10, gate=True), channels="hybrid")
    assert all(r.topic.title != "对你说新年快乐" for r in toast), toast
    asked = await ranker.rank(relevance_query("对你说新年快乐是什么梗", top_k=10, gate=True), channels="hybrid")
    assert asked and asked[0].topic.title == "对你说新年快乐"
    meme = await ranker.rank(relevance_query("主持人扑克牌穿帮了你们看到没", top_k=10, gate=True), channels="hybrid")
    assert meme and meme[0].topic.title == "主持人扑克牌穿帮"


async def test_a_greeting_before_a_line_lends_it_no_words() -> None:
    """A toast, then the grandmother's next line about pocket money: the toast's 过年 is no context for
    it, so the line brings the list's 过年好 video no evidence (synthetic entries; the lexical channel,
    ungated, so that the evidence itself is read)."""
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in
                           [*ENTRIES, ("douyin", "v", "你说公主王子过年好")]])
    window = ConversationWindow()
    window.add("爷爷奶奶过年好！祝您二老身体健康，长命百岁！", ts=0.0)
    window.add("乖，这是奶奶给你的压岁钱，拿好了，别告诉你妈。", ts=3.0)
    found = {r.topic.item_id: r for r in await ranker.rank(RankQuery(text=window, top_k=10))}
    assert found["v"].components["lexical"] == 0.0
    window.add("那个公主王子过年好的视频你们刷到没？", ts=6.0)  # said of it, it is found
    found = {r.topic.item_id: r for r in await ranker.rank(RankQuery(text=window, top_k=10))}
    assert max(found.values(), key=lambda r: r.score).topic.item_id == "v"
