"""One ranking path: the index swaps atomically, and every caller ranks the same way."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

from agent.ranking import HashEmbedder, IndexSnapshot, MicroBatcher, Ranker, RankQuery

from .conftest import make_topic


def _topics(prefix: str, n: int) -> list:
    words = ["春晚机器人扭秧歌", "油价大跌", "Pope Leo XIV", "egg prices bird flu", "哪吒2票房", "GPT-5 release"]
    return [make_topic(prefix, f"{prefix}{i}", f"{words[i % len(words)]} {prefix} {i}") for i in range(n)]


async def test_queries_during_reindexing_never_raise_nor_mix_snapshots() -> None:
    emb = HashEmbedder()
    small, large = _topics("a", 7), _topics("b", 300)  # different sizes: a torn index would not line up
    ids = {frozenset(t.id for t in small), frozenset(t.id for t in large)}
    ranker = Ranker(emb, small, batcher=MicroBatcher(emb))
    stop = threading.Event()
    swaps = 0

    def reindex() -> None:
        nonlocal swaps
        while not stop.is_set():
            ranker.index(large if swaps % 2 == 0 else small)
            swaps += 1

    worker = threading.Thread(target=reindex)
    worker.start()
    try:
        seen = 0
        for i in range(300):
            out = await ranker.rank(RankQuery(text=f"春晚机器人 油价 pope {i}", exclude=frozenset({"a:a1", "b:b2"})))
            got = {r.id for r in out}
            assert got and any(got <= s for s in ids), got  # all from one snapshot, never mixed
            seen += 1
            await asyncio.sleep(0)
    finally:
        stop.set()
        worker.join()
        assert ranker.batcher is not None
        ranker.batcher.close()
    assert seen == 300 and swaps > 2


def test_snapshot_is_immutable(hash_ranker: Ranker) -> None:
    snap = hash_ranker.snapshot
    with pytest.raises(ValueError):
        snap.matrix[0, 0] = 1.0
    with pytest.raises(TypeError):
        snap.pos["x"] = 1  # type: ignore[index]
    hash_ranker.index(_topics("c", 3))
    assert len(snap) == 8 and len(hash_ranker.snapshot) == 3  # the old snapshot is untouched
    assert isinstance(IndexSnapshot.empty(4).matrix, np.ndarray)


@pytest.mark.parametrize("text", ["春晚机器人扭秧歌太好笑了", "the new pope from chicago", "把盐递给我一下"])
async def test_cli_and_live_calls_rank_identically(hash_ranker: Ranker, text: str) -> None:
    live = await hash_ranker.rank(RankQuery(text=text, top_k=3, gate=True))
    cli = hash_ranker.rank_sync(RankQuery(text=text, top_k=3, gate=True))
    assert [(r.id, round(r.score, 6)) for r in live] == [(r.id, round(r.score, 6)) for r in cli]
