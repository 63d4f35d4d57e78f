"""`EmbeddingCache`: passage vectors kept on disk across restarts, keyed by model."""

from __future__ import annotations

import numpy as np

from agent.ranking import EmbeddingCache, HashEmbedder, Ranker


def test_cache_roundtrip_and_persistence(tmp_path, topics) -> None:
    path = tmp_path / "embeddings.sqlite3"
    emb = HashEmbedder()
    r1 = Ranker(emb, topics, cache=EmbeddingCache(path))
    assert r1.cache is not None and r1.cache.misses == len(topics) and r1.cache.hits == 0
    calls = emb.items
    cache2 = EmbeddingCache(path)  # a "restart": new connection, same file
    r2 = Ranker(emb, topics, cache=cache2)
    assert cache2.hits == len(topics) and cache2.misses == 0
    assert emb.items == calls  # nothing re-embedded
    np.testing.assert_allclose(r1.matrix, r2.matrix, atol=2e-3)  # float16 on disk


def test_cache_is_keyed_by_model(tmp_path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite3", dtype="float32")
    v = np.ones((1, 4), dtype=np.float32)
    cache.put_many("m1", ["x"], v)
    got, found = cache.get_many("m2", ["x"], 4)
    assert not found.any()
    got, found = cache.get_many("m1", ["x", "y", "x"], 4)
    assert found.tolist() == [True, False, True]
    np.testing.assert_array_equal(got[0], v[0])
    assert len(cache) == 1
