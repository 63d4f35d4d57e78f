from __future__ import annotations

import pytest

from agent.models import Topic
from agent.ranking import (
    ConversationWindow,
    HashEmbedder,
    MicroBatcher,
    Ranked,
    Ranker,
    RankerEntry,
    TopicPrior,
)

from .conftest import make_topic, relevance_query


async def test_rank_returns_components_best_first(hash_ranker: Ranker) -> None:
    out = await hash_ranker.rank(relevance_query("昨晚春晚那个机器人扭秧歌你看了吗", top_k=3))
    assert [r.id for r in out][0] == "weibo:cw-robot"
    assert len(out) == 3 and all(isinstance(r, Ranked) for r in out)
    assert out[0].score >= out[1].score >= out[2].score
    for key in ("dense", "lexical", "relevance", "prior", "novelty"):
        assert key in out[0].components
    assert out[0].components["lexical"] > 0.5
    with pytest.raises(TypeError):
        out[0].components["dense"] = 1.0  # type: ignore[index]


async def test_empty_and_whitespace_queries_return_nothing(hash_ranker: Ranker) -> None:
    assert await hash_ranker.rank(relevance_query("")) == []
    assert await hash_ranker.rank(relevance_query("  \n\t ")) == []
    assert await hash_ranker.rank(relevance_query(ConversationWindow())) == []
    assert hash_ranker.rank_sync(relevance_query("   ")) == []


async def test_huge_query_is_truncated_not_an_error(hash_ranker: Ranker, caplog) -> None:
    out = await hash_ranker.rank(relevance_query("blah " * 200_000 + "春晚机器人扭秧歌", top_k=1))
    assert out[0].id == "weibo:cw-robot"
    assert any("truncated" in r.getMessage() for r in caplog.records)


async def test_gate_silences_chit_chat_but_passes_mentions(hash_ranker: Ranker) -> None:
    assert await hash_ranker.rank(relevance_query("把盐递给我一下 谢谢", top_k=10, gate=True)) == []
    hit = await hash_ranker.rank(relevance_query("春晚机器人扭秧歌太好笑了", top_k=10, gate=True))
    assert hit and hit[0].id == "weibo:cw-robot"
    assert all(r.components["relevance"] >= hash_ranker.gate_threshold() for r in hit)


def test_gate_reads_its_own_mix_of_the_channels(topics: list[Topic]) -> None:
    """A profile may gate on lexical evidence alone while still ranking on the fused score."""
    q = "春晚机器人扭秧歌太好笑了"
    fused = Ranker(HashEmbedder(), topics)
    everything = fused.rank_sync(relevance_query(q, top_k=len(fused)))
    top = everything[0].components
    assert abs(top["lexical"] - top["relevance"]) > 0.05  # the two gates disagree on the best match
    bar = (top["lexical"] + top["relevance"]) / 2
    profile = fused.profile.with_lang("zh", gate_dense=0.0, gate=bar)
    gated = Ranker(HashEmbedder(), topics, profile=profile).rank_sync(relevance_query(q, top_k=len(fused), gate=True))
    assert {r.id for r in gated} == {r.id for r in everything if r.components["lexical"] >= bar}
    assert [r.id for r in gated] == [r.id for r in everything if r.components["lexical"] >= bar]  # order: fused
    # ...which is not what a gate on the fused relevance at the same bar lets through
    assert {r.id for r in gated} != {r.id for r in everything if r.components["relevance"] >= bar}


async def test_novelty_suppresses_recently_shown(hash_ranker: Ranker) -> None:
    q = "春晚机器人扭秧歌"
    first = await hash_ranker.rank(relevance_query(q, top_k=2))
    shown = {first[0].id}
    again = await hash_ranker.rank(relevance_query(q, top_k=2, exclude=frozenset(shown)))
    assert again[0].id != first[0].id
    gated = await hash_ranker.rank(relevance_query(q, top_k=10, gate=True, exclude=frozenset(shown)))
    assert first[0].id not in [r.id for r in gated]
    low = (await hash_ranker.rank(relevance_query(q, top_k=8, exclude=frozenset(shown))))[-1]
    assert low.id == first[0].id and low.components["novelty"] < 0


async def test_prior_favours_hot_rising_new_topics() -> None:
    a = make_topic("weibo", "a", "春晚机器人扭秧歌 现场")
    b = make_topic("douyin", "b", "春晚机器人扭秧歌 花絮")
    entries = [
        RankerEntry(topic=a, prior=TopicPrior(heat=10, velocity=-5)),
        RankerEntry(topic=b, prior=TopicPrior(heat=10_000, velocity=50, is_new=True)),
    ]
    r = Ranker(HashEmbedder(), entries)
    plain = await r.rank(relevance_query("春晚机器人扭秧歌", top_k=2))
    boosted = await r.rank(relevance_query("春晚机器人扭秧歌", top_k=2, prior=True))
    assert plain[0].components["prior"] == 0.0
    assert boosted[0].id == "douyin:b" and boosted[0].components["prior"] > boosted[1].components["prior"]


async def test_stored_topic_like_objects_are_accepted() -> None:
    class Stored:  # the shape of agent.store.db.StoredTopic
        def __init__(self, topic: Topic, velocity: float, is_new: bool) -> None:
            self.topic, self.velocity, self.is_new = topic, velocity, is_new

    r = Ranker(HashEmbedder(), [Stored(make_topic("weibo", "x", "春晚机器人", heat=5), 3.0, True)])
    assert r.entries[0].prior == TopicPrior(heat=5, velocity=3.0, is_new=True)
    with pytest.raises(TypeError):
        Ranker(HashEmbedder(), [object()])


async def test_lexical_only_ranker_and_batcher_path(topics) -> None:
    lex = Ranker(None, topics)
    out = await lex.rank(relevance_query("egg prices are crazy with the bird flu", top_k=2))
    assert out[0].id == "google:eggs" and out[0].components["dense"] == 0.0
    emb = HashEmbedder()
    batcher = MicroBatcher(emb)
    r = Ranker(emb, topics, batcher=batcher)
    assert (await r.rank(relevance_query("skyrim in a nutshell", top_k=1)))[0].id == "reddit:skyrim"
    assert batcher.model_calls == 1
    batcher.close()


def test_window_recency_shifts_the_lexical_channel(hash_ranker: Ranker) -> None:
    win = ConversationWindow(half_life_s=5)
    win.add("油价要大跌了 三年来最大跌幅", ts=0)
    win.add("春晚机器人扭秧歌你看了吗", ts=30)
    out = hash_ranker.rank_sync(relevance_query(win, top_k=2))
    assert out[0].id == "weibo:cw-robot"
