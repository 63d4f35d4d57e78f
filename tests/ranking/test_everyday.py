"""Greetings and customs said as such get no caption; asked about, they do."""

from __future__ import annotations

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker, RankQuery
from agent.ranking.everyday import asks, everyday_phrase, everyday_share, only_everyday, vocabulary
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


def test_a_question_to_the_table_about_a_custom_is_no_news() -> None:
    """"年夜饭都上齐了吗" asks the table, not about the list's dinner photo; "谁包的饺子" asks who made them. A
    question mark or 吗 or 谁 alone no longer counts as asking about an entry (synthetic titles)."""
    assert not asks("年夜饭都上齐了吗，开饭了开饭了。")
    assert only_everyday("年夜饭都上齐了吗，开饭了开饭了。", "终于轮到我晒年夜饭了")
    assert only_everyday("来来来，大家一起包饺子，谁包的饺子里有硬币谁明年发财。", "运动员包饺子现场")
    assert not only_everyday("年夜饭晒图那个梗是什么？", "终于轮到我晒年夜饭了")  # asked what it is


def test_watching_the_gala_is_the_nights_custom() -> None:
    """On the Gala's night the table says 春晚 all evening: said with nothing else a headline holds, it is
    no news of that headline."""
    assert only_everyday("吃完年夜饭一家人一起看春晚，这才叫过年。", "春晚")
    assert only_everyday("春晚快开始了，把电视声音调大点。", "某歌手春晚开唱")
    assert not only_everyday("春晚那个机器人扭秧歌太好玩了", "春晚机器人扭秧歌")


async def test_a_line_meeting_an_entry_on_everyday_words_lends_its_story_nothing() -> None:
    """The window holds a line about 刘涛; the newest says only that the Gala is starting, which an entry of
    her story also says. The newest line must be about a result (`latest_top_k`), and an everyday match is
    about nothing: no caption (synthetic entries; the story given as `related`)."""
    entries = [("baidu", "a", "春晚开始了"), ("douyin", "b", "刘涛春晚造型惊艳全场")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in entries])
    story = {"baidu:a", "douyin:b"}
    window = ConversationWindow()
    window.add("刘涛今天那身造型真好看，惊艳全场。", ts=0.0)
    window.add("春晚快开始了，把电视声音调大点。", ts=3.0)
    said = RankQuery(text=window, top_k=3, gate=True, gate_offset=-50, prior=False, mmr=False,
                     latest="春晚快开始了，把电视声音调大点。", latest_top_k=3)
    found = await ranker.rank(said, related=lambda keep: keep | story if keep & story else keep)
    assert found == []


def test_a_toast_said_without_commas_is_still_a_toast() -> None:
    """A recogniser that writes no punctuation runs the wishes together: 乐身 of "新年快乐身体健康" is the seam
    between two everyday words, not a word of the line."""
    written, said = "来来来，都端起杯子，祝大家新年快乐，身体健康！", "来来来都端起杯子祝大家新年快乐身体健康"
    assert everyday_phrase(written) and everyday_phrase(said)
    assert everyday_share(said) == everyday_share(written)
    assert not everyday_phrase("今年红包我给俩孩子一人包了八百八图个吉利")
