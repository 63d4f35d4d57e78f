"""What the table points at as its own is no news: a household's things, the dish in front of them."""

from __future__ import annotations

from agent.models import Topic
from agent.ranking import Ranker, RankQuery
from agent.ranking.deixis import GOVERNS, at_the_table, pointed_out

# Synthetic list entries (written here): two lifestyle entries and a meme beside them.
ENTRIES = [("baidu", "s", "炖肉时的浮沫是营养精华？假的"), ("baidu", "v", "扫地机器人卡住了怎么办"),
           ("weibo", "m", "主持人扑克牌穿帮")]


def test_what_a_household_owns_or_the_dish_on_the_table_governs_is_read_as_a_break() -> None:
    said = at_the_table("咱家那个扫地机器人又卡沙发底下了，明天记得拽出来。")
    assert "扫地" not in said and "机器" not in said and said.endswith("，明天记得拽出来。")
    said = at_the_table("妈，这锅炖肉上面的浮沫你撇了没，看着一层白沫子。")
    assert "浮沫" not in said and "炖肉" not in said and said.endswith("看着一层白沫子。")
    assert pointed_out("我家的狗今天也吃饺子") == [(0, 10)]  # a pet is the household's too


def test_a_meme_pointed_at_with_that_or_a_clause_pointing_at_news_keeps_its_words() -> None:
    for line in ("刘谦那个魔术，就小尼一个人的牌没对上", "咱家群里那个视频你们看了吗", "这条热搜你们刷到没",
                 "这件事太离谱了"):
        assert at_the_table(line) == line


def test_a_person_of_the_household_may_talk_about_the_news() -> None:
    for line in ("我家孩子说春晚机器人打醉拳太帅了", "我家那口子看王菲看哭了", "我们家的老人都爱看春晚"):
        assert at_the_table(line) == line


def test_without_commas_a_pointing_phrase_governs_its_noun_phrase_not_the_rest_of_the_line() -> None:
    line = "咱家冰箱坏了你们看春晚机器人打醉拳没"
    said = at_the_table(line)
    assert said.endswith("机器人打醉拳没") and "冰箱" not in said
    assert pointed_out(line) == [(0, 2 + GOVERNS)]


async def test_the_familys_own_stew_and_vacuum_bring_the_lists_entries_no_words() -> None:
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in ENTRIES])

    async def lexical(line: str) -> dict[str, float]:
        return {r.topic.item_id: r.components["lexical"] for r in await ranker.rank(RankQuery(text=line, top_k=10))}

    assert (await lexical("这锅炖肉上面的浮沫你撇了没"))["s"] == 0.0
    assert (await lexical("咱家那个扫地机器人又卡住了"))["v"] == 0.0
    # said as news, the same words find the entries
    assert (await lexical("听说炖肉的浮沫是营养精华，假的吧"))["s"] > 0.0
    assert (await lexical("那个扫地机器人卡住的视频你们看了吗"))["v"] > 0.0
