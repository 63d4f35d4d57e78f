"""Re-indexing costs the new work: held rows are reused, only new titles are embedded."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest

from agent.errors import StoppingError
from agent.models import Topic
from agent.ranking import BM25Index, Ranker
from agent.ranking.embedders import HashEmbedder
from agent.ranking.snapshot import build_snapshot

from .conftest import relevance_query


class CountingEmbedder(HashEmbedder):
    """The hash double, remembering which texts it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded: list[str] = []

    def encode(self, texts: Sequence[str], *, role: str = "passage") -> np.ndarray:
        if role == "passage":
            self.encoded.extend(texts)
        return super().encode(texts, role=role)


TITLES = ["春晚机器人扭秧歌", "哪吒2票房突破100亿", "全国多地迎来降温降雪天气", "OpenAI releases a new model",
          "外交部回应关税问题",
          "Show HN: A tiny embedding server in C", "高考报名人数创新高", "Rust 2024 edition ships"]


def topics(titles: Sequence[str]) -> list[Topic]:
    return [Topic(source="weibo" if TITLES.index(t) % 2 else "zhihu", item_id=t, title=t, heat=float(100 - i))
            for i, t in enumerate(titles)]


def test_reindex_embeds_only_new_titles_and_drops_expired_ones() -> None:
    emb = CountingEmbedder()
    ranker = Ranker(emb, topics(TITLES[:6]))
    assert len(emb.encoded) == 6
    emb.encoded.clear()
    later = topics([TITLES[5], *TITLES[1:4], TITLES[6], TITLES[7]])  # 0 and 4 expired, 6 and 7 new, order changed
    snap = ranker.index(later)
    assert sorted(emb.encoded) == sorted([TITLES[6], TITLES[7]])
    assert sorted(snap.ids) == sorted(t.id for t in later) and "zhihu:外交部回应关税问题" not in snap.pos
    fresh = build_snapshot(later, embedder=HashEmbedder())
    assert np.allclose(snap.matrix, fresh.matrix) and np.allclose(snap.prior, fresh.prior)
    for query in ("降温降雪", "票房 100亿", "new model release", "高考"):
        assert np.allclose(snap.lexical.scores(query), fresh.lexical.scores(query), atol=1e-5), query
    top = ranker.rank_sync(relevance_query("今年高考报名人数", top_k=1))
    assert top and top[0].topic.title == "高考报名人数创新高"


def test_heat_read_against_each_list_follows_the_lists_that_changed() -> None:
    first = topics(TITLES)
    ranker = Ranker(None, first)
    # zhihu's list changes (one item gone, one item hotter); weibo's items are the same objects
    later = [t for t in first if t.title != TITLES[0]]
    later = [t.model_copy(update={"heat": 1000.0}) if t.title == TITLES[6] else t for t in later]
    snap = ranker.index(later)
    fresh = build_snapshot(later, embedder=None)
    assert np.allclose(snap.prior, fresh.prior) and np.allclose(snap.heat, fresh.heat)
    assert snap.heat[snap.pos["zhihu:" + TITLES[6]]] == pytest.approx(3 / 4)  # now the #1 of 3


def test_a_changed_title_is_embedded_again() -> None:
    emb = CountingEmbedder()
    ranker = Ranker(emb, topics(TITLES[:3]))
    emb.encoded.clear()
    renamed = topics(TITLES[:3])
    renamed[1] = Topic(source="weibo", item_id=TITLES[1], title="哪吒2票房突破150亿")
    ranker.index(renamed)
    assert emb.encoded == ["哪吒2票房突破150亿"]


def test_bm25_updated_many_times_scores_like_a_fresh_build() -> None:
    rng = np.random.default_rng(1)
    words = ["春晚", "机器人", "票房", "降温", "关税", "model", "server", "rust", "高考", "寒潮", "news", "edition"]

    def doc(i: int) -> str:
        return " ".join(rng.choice(words, size=int(rng.integers(2, 6)))) + f" 第{i}期"

    docs = [doc(i) for i in range(300)]
    index = BM25Index(docs)
    held = list(range(300))
    for step in range(12):  # drop a third, add new ones: dead slots pile up and get compacted
        keep = [r for r in range(len(held)) if (r + step) % 3]
        new = [doc(1000 * (step + 1) + i) for i in range(150)]
        index = index.updated([*keep, *new])
        docs = [docs[r] for r in keep] + new
        held = list(range(len(docs)))
    assert index.dead < max(len(index), 1024) + 200  # compaction keeps the gone slots bounded
    ref = BM25Index(docs)
    for query in ("春晚 机器人", "票房 降温 rust", "第5期", "server model news"):
        assert np.allclose(index.scores(query), ref.scores(query), atol=1e-4), query
    assert index.idf("春晚") == pytest.approx(ref.idf("春晚"))


def test_a_cancelled_build_is_abandoned_and_the_published_index_stays() -> None:
    emb = CountingEmbedder()
    ranker = Ranker(emb, topics(TITLES[:4]))
    before = ranker.snapshot
    ranker.cancel.set()
    with pytest.raises(StoppingError):
        ranker.index(topics(TITLES))
    assert ranker.snapshot is before and len(ranker) == 4
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(StoppingError):
        build_snapshot(topics(TITLES), embedder=None, cancel=cancel)
