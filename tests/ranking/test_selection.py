"""Selection: the results chosen from the scores, spread over near-duplicates (MMR)."""

from __future__ import annotations

from dataclasses import replace

from agent.ranking import HashEmbedder, Ranker, profile_for

from .conftest import make_topic, relevance_query


async def test_mmr_spreads_near_duplicates() -> None:
    topics = [
        make_topic("weibo", "a", "春晚机器人扭秧歌"),
        make_topic("douyin", "b", "春晚机器人扭秧歌 视频"),
        make_topic("baidu", "c", "春晚机器人 扭秧歌"),
        make_topic("weibo", "d", "春晚魔术揭秘"),
    ]
    emb = HashEmbedder()
    r = Ranker(emb, topics, profile=replace(profile_for(emb.name), mmr_lambda=0.3))
    plain = await r.rank(relevance_query("春晚机器人扭秧歌 春晚魔术", top_k=2))
    diverse = await r.rank(relevance_query("春晚机器人扭秧歌 春晚魔术", top_k=2, mmr=True))
    assert "weibo:d" not in [x.id for x in plain]
    assert "weibo:d" in [x.id for x in diverse]
    assert "redundancy" in diverse[0].components

