"""The query encoder: one encode per utterance, a repeated line answered from its cache."""

from __future__ import annotations

from agent.ranking import Ranker

from .conftest import relevance_query


async def test_query_vector_is_encoded_once_per_utterance(hash_ranker: Ranker) -> None:
    assert hash_ranker.encoder is not None
    before = hash_ranker.encoder.encodes
    await hash_ranker.rank(relevance_query("春晚机器人扭秧歌太好笑了", top_k=3))
    await hash_ranker.rank(relevance_query("春晚机器人扭秧歌太好笑了", top_k=3, gate=True))
    assert hash_ranker.encoder.encodes == before + 1


async def test_a_line_said_again_is_counted_as_a_cache_hit(hash_ranker: Ranker) -> None:
    """What a load test reads beside its capacity: a repeated line costs no encode."""
    hits = hash_ranker.cache_hits
    await hash_ranker.rank(relevance_query("哪吒2的票房又破纪录了", top_k=3))
    assert hash_ranker.cache_hits == hits
    await hash_ranker.rank(relevance_query("哪吒2的票房又破纪录了", top_k=3))
    assert hash_ranker.cache_hits == hits + 1

