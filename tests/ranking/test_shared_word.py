"""A Chinese line passes the gate on a Chinese title only when they share a term (scoring._sharing_a_word)."""

from __future__ import annotations

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker

from .conftest import relevance_query

# Synthetic list entries (written here).
TITLES = [("weibo", "a", "西安分会场 赢麻了"), ("douyin", "b", "春晚机器人扭秧歌"),
          ("reddit", "c", "Robots dance at the Spring Festival Gala")]


async def test_a_line_sharing_no_word_with_a_chinese_title_never_captions_it() -> None:
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in TITLES])
    # a bar so low that any cosine would pass: what is left is what the rule lets through
    found = await ranker.rank(relevance_query("高铁上站了四个小时，腿都麻了", top_k=3, gate=True, gate_offset=-50))
    assert [r.topic.title for r in found if r.topic.source != "reddit"] == []
    about = await ranker.rank(relevance_query("春晚那个机器人扭秧歌太好玩了", top_k=3, gate=True, gate_offset=-50))
    assert about and about[0].topic.title == "春晚机器人扭秧歌"
    # the other script keeps its own bar: the rule is about a Chinese line against Chinese titles
    assert any(r.topic.source == "reddit" for r in found)
    ungated = await ranker.rank(relevance_query("高铁上站了四个小时，腿都麻了", top_k=3))
    assert len(ungated) == 3  # ranking is untouched: the dense channel still orders


async def test_a_bigram_across_a_particles_seam_is_no_shared_word() -> None:
    """"今年的春联" and "以前的春晚" both hold 的春, the seam between 的 and the next word: neither says the
    other's word, so the line does not caption it; a line saying 春晚 does (synthetic titles)."""
    titles = [("baidu", "a", "以前的春晚和现在的有什么差别"), ("douyin", "b", "春晚机器人扭秧歌")]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in titles])
    found = await ranker.rank(relevance_query("今年的春联谁贴的，有点歪了。", top_k=3, gate=True, gate_offset=-50))
    assert found == []
    about = await ranker.rank(relevance_query("以前的春晚比现在好看", top_k=1, gate=True, gate_offset=-50))
    assert about and about[0].topic.title == "以前的春晚和现在的有什么差别"
