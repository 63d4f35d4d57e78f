"""One result per story (`agent/index/story_rank.py`): the collapse the live loop, chat, `trendlens rank`,
the evaluation scripts and the benches share."""

from __future__ import annotations

import re
from pathlib import Path

from agent.index.story_rank import StoryRanking, one_per_story
from agent.models import Topic
from agent.ranking import HashEmbedder, Ranked, Ranker, RankerEntry, RankQuery
from agent.stories.linking import Story

ROOT = Path(__file__).resolve().parents[2]


def _ranked(*pairs: tuple[str, str]) -> list[Ranked]:
    out = []
    for n, (source, item) in enumerate(pairs):
        t = Topic(source=source, item_id=item, title=f"{source} {item}")
        out.append(Ranked(id=t.id, topic=t, score=1.0 - n / 10, components={}))
    return out


def test_each_story_once_at_its_best_member_in_the_rankers_order() -> None:
    raw = _ranked(("weibo", "a"), ("baidu", "a"), ("zhihu", "b"), ("douyin", "a"), ("v2ex", "c"))
    story = Story("c-1", tuple(r.topic for r in raw if r.topic.item_id == "a"), 0.0, ("weibo", "baidu", "douyin"))
    story_of = {t.id: story for t in story.members}
    assert [r.id for r in one_per_story(raw, story_of, 5)] == ["weibo:a", "zhihu:b", "v2ex:c"]
    assert [r.id for r in one_per_story(raw, story_of, 2)] == ["weibo:a", "zhihu:b"]
    # the top result is never changed by the collapse: a gate fitted on the top-1 reads the same either way
    assert one_per_story(raw, story_of, 1) == raw[:1]


def ranked(titles: list[tuple[str, str, str]]) -> list[Ranked]:
    """(source, item, title) ranked in that order, best first."""
    out = []
    for n, (source, item, title) in enumerate(titles):
        t = Topic(source=source, item_id=item, title=title)
        out.append(Ranked(id=t.id, topic=t, score=0.6 - n / 10, components={}))
    return out


def test_the_line_just_said_picks_the_storys_item_the_window_picked_the_story() -> None:
    """Synthetic: the window's older lines put the robots story's chatbot item first; the line just said names
    the drunken-fist act of another member, which the caption shows, at the story's score (what the gate
    read). An English line shares no term with a Chinese title, but its words are Chinese words too (醉 and 拳 of
    "drunken fist"); the robots both items hold tell neither apart, and then the best-scored member stays."""
    titles = [("douyin", "a", "大模型接上晚会机器人了"), ("baidu", "b", "机器人再登晚会 表演醉拳帅到起飞"),
              ("baidu", "c", "烟花秀今晚开始")]
    raw = ranked(titles)
    story = Story("c-1", (raw[0].topic, raw[1].topic), 0.0, ("douyin", "baidu"))
    story_of = {t.id: story for t in story.members}
    picked = one_per_story(raw, story_of, 2, said="刚才那帮机器人打醉拳你们看见没")
    assert [r.id for r in picked] == ["baidu:b", "baidu:c"] and picked[0].score == raw[0].score
    assert [r.id for r in one_per_story(raw, story_of, 2)] == ["douyin:a", "baidu:c"]
    assert [r.id for r in one_per_story(raw, story_of, 2, said="those robots doing drunken fist")] == \
        ["baidu:b", "baidu:c"]
    assert [r.id for r in one_per_story(raw, story_of, 2, said="those robots were amazing")] == \
        ["douyin:a", "baidu:c"]


def test_a_line_about_the_subject_is_not_shown_what_someone_said_of_it() -> None:
    """Synthetic: a story of one host's cards holds what another host said of them ("李大伟：…"), whose headline
    shares most of the line's words. A line that does not name that speaker is about the cards: the member about
    them that shares a word of the line is shown. A line naming the speaker gets the quote; and where no other
    member shares a word, the quote still stands for its story."""
    titles = [("baidu", "a", "李大伟：小明扑克牌全国唯一没对上"), ("weibo", "b", "汗流浃背了吧小明"),
              ("douyin", "c", "小明魔术穿帮")]
    raw = ranked(titles)
    story = Story("c-1", tuple(r.topic for r in raw), 0.0, ("baidu", "weibo", "douyin"))
    story_of = {t.id: story for t in story.members}
    picked = one_per_story(raw, story_of, 1, said="刚才那个魔术，就小明一个人的牌没对上，笑死我了")
    assert [r.id for r in picked] == ["douyin:c"] and picked[0].score == raw[0].score
    assert [r.id for r in one_per_story(raw, story_of, 1, said="李大伟说小明的牌全国唯一没对上")] == ["baidu:a"]
    assert [r.id for r in one_per_story(raw[:1] + raw[1:2], story_of, 1, said="全国唯一没对上的那张牌")] == \
        ["baidu:a"]
    # an English line names a speaker through the bridges, which the pick does not read: its pick stands
    assert [r.id for r in one_per_story(raw, story_of, 1, said="the other host joked about his cards")] == ["baidu:a"]


def test_on_one_list_a_line_about_the_subject_is_not_shown_what_someone_said_of_it() -> None:
    """Synthetic: on one list the quote ("李大伟：…") is a story of its own, first for a line about the cards that
    does not name its speaker; the next story shares a word of the line and quotes no one, so it comes first, at
    the quote's score. A line naming the speaker keeps the quote first, and so does a line sharing no word with
    another story; a third story quoting another speaker is not put first either."""
    raw = ranked([("baidu", "a", "李大伟：小明扑克牌全国唯一没对上"), ("baidu", "b", "王小红：今晚的魔术太神了"),
                  ("baidu", "c", "小明魔术穿帮"), ("baidu", "d", "烟花秀今晚开始")])
    alone: dict[str, Story] = {}
    picked = one_per_story(raw, alone, 3, said="刚才那个魔术，就小明一个人的牌没对上，笑死我了")
    assert [r.id for r in picked] == ["baidu:c", "baidu:a", "baidu:b"] and picked[0].score == raw[0].score
    assert [r.id for r in one_per_story(raw, alone, 3, said="李大伟说小明的牌全国唯一没对上")][0] == "baidu:a"
    assert [r.id for r in one_per_story(raw, alone, 3, said="全国唯一没对上的那张牌")][0] == "baidu:a"
    assert [r.id for r in one_per_story(raw, alone, 3, said="the other host joked about his cards")][0] == "baidu:a"


def test_grouped_ranking_holds_the_stories_the_service_would_form() -> None:
    topics = [Topic(source="weibo", item_id="w1", title="华为发布Mate70系列 售价5499元起"),
              Topic(source="baidu", item_id="b1", title="华为Mate70系列正式发布 5499元起"),
              Topic(source="zhihu", item_id="z1", title="如何评价电影哪吒2的票房")]
    ranker = Ranker(HashEmbedder(), [RankerEntry(topic=t, id=t.id) for t in topics])
    ranking = StoryRanking.grouped(ranker)
    assert ranking.story_of["weibo:w1"] is ranking.story_of["baidu:b1"]
    assert "zhihu:z1" not in ranking.related({"weibo:w1"})
    assert ranking.related({"weibo:w1"}) == {"weibo:w1", "baidu:b1"}
    q = RankQuery(text="华为Mate70 5499元起", top_k=3, prior=False, mmr=False)
    raw = ranker.rank_queries_sync([q])[0]
    assert {r.id for r in raw[:2]} == {"weibo:w1", "baidu:b1"}
    assert [r.id for r in ranking.rank_queries_sync([q])[0]][1:] == ["zhihu:z1"]


# the gate's fitters read only whether the top-1 clears the bar, which the collapse never changes (above)
FITTERS = {"scripts/eval/tune_relevance.py", "scripts/eval/tune_crosslingual.py"}


def test_every_script_that_ranks_measures_the_shipped_path() -> None:
    """A figure from a script describes the ranking a wearer gets: each script that asks a ranker goes
    through `StoryRanking`, so its results are one per story as the live loop's are."""
    asks = re.compile(r"\.rank_queries_sync\(|\.rank\(")
    raw = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "scripts").rglob("*.py"))
           if asks.search(p.read_text(encoding="utf-8")) and "StoryRanking" not in p.read_text(encoding="utf-8")]
    assert set(raw) <= FITTERS, f"scripts ranking without the story collapse: {sorted(set(raw) - FITTERS)}"
