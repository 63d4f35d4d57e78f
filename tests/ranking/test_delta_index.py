"""A re-index built on the previous snapshot answers exactly as an index built from scratch.

Rows of topics the caller passes again unchanged (the same objects) lend their language, prior
parts and platform to the next snapshot instead of being read again; these tests walk cycles
where topics are added, re-heated, re-worded, dropped and reordered, and compare every answer
with a full rebuild of the same list.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from agent.models import Topic
from agent.ranking import Ranker, RankQuery
from agent.ranking.embedders import HashEmbedder
from agent.ranking.snapshot import RankerEntry, TopicPrior, build_snapshot
from agent.store.records import StoredTopic

TITLES = ["春晚机器人扭秧歌", "哪吒2票房突破100亿", "全国多地迎来降温降雪天气", "OpenAI releases a new model",
          "外交部回应关税问题", "Show HN: A tiny embedding server in C", "高考报名人数创新高",
          "Rust 2024 edition ships", "油价今晚迎来下调", "春运火车票开售", "SpaceX launches Starship again",
          "世界杯预选赛国足客场取胜"]
QUERIES = ["春晚那个机器人", "油价又降了", "starship launch", "高考人数", "火车票什么时候开售", "国足赢了"]
SOURCES = ("zhihu", "weibo", "hackernews")


def topic(i: int, *, title: str | None = None, heat: float | None = None, lang: str = "other") -> Topic:
    return Topic(source=SOURCES[i % 3], item_id=f"t{i}", title=title or TITLES[i],
                 heat=float(100 - i) if heat is None else heat, rank=i // 3 + 1, lang=lang)


def stored(t: Topic, velocity: float | None, observations: int) -> StoredTopic:
    return StoredTopic(topic=t, first_seen="2026-01-01T00:00:00Z", last_seen="2026-01-01T01:00:00Z",
                       velocity=velocity, observations=observations)


def answers(ranker: Ranker) -> list[list[tuple[str, float]]]:
    out = []
    for q in QUERIES:
        ranked = ranker.rank_sync(RankQuery(text=q, gate=True))
        out.append([(r.topic.id, round(float(r.score), 5)) for r in ranked])
    return out


def same_as_rebuild(ranker: Ranker, items: Sequence[object]) -> None:
    fresh = Ranker(ranker.embedder)  # built from nothing: no previous snapshot lends it anything
    fresh.snapshot = build_snapshot(items, embedder=ranker.embedder, background=ranker.profile.calibration == "topic")
    got, want = ranker.snapshot, fresh.snapshot
    assert got.ids == want.ids
    assert np.array_equal(got.cjk, want.cjk)
    assert np.allclose(got.heat, want.heat) and np.allclose(got.prior, want.prior)
    assert np.array_equal(got.velocity, want.velocity) and np.array_equal(got.is_new, want.is_new)
    assert got.rows_of.keys() == want.rows_of.keys()
    for source, rows in want.rows_of.items():
        assert np.array_equal(got.rows_of[source], rows), source
    assert answers(ranker) == answers(fresh)


@pytest.mark.parametrize("embedder", [None, HashEmbedder()], ids=["lexical", "dense"])
def test_cycles_of_changes_answer_as_a_full_rebuild(embedder: HashEmbedder | None) -> None:
    held: list[object] = [topic(i) for i in range(9)]
    ranker = Ranker(embedder, held)
    same_as_rebuild(ranker, held)

    # added: three new topics, one on each platform; the rest are the same objects
    held = held + [topic(i) for i in (9, 10, 11)]
    ranker.index(held)
    same_as_rebuild(ranker, held)

    # changed: one topic hotter (its platform's list reads again), one re-worded under the same id
    held = list(held)
    held[7] = topic(7, heat=500.0)
    held[2] = topic(2, title="全国多地迎来大范围降温")
    ranker.index(held)
    same_as_rebuild(ranker, held)

    # dropped: a platform loses an item, the others keep theirs; and the list comes in another order
    held = [t for k, t in enumerate(held) if k != 4][::-1]
    ranker.index(held)
    same_as_rebuild(ranker, held)

    # the store's rows: velocity and newness are read from them, then lent while unchanged
    rows = [stored(t, velocity=float(k % 4) - 1.0, observations=k % 3) for k, t in enumerate(held)]  # type: ignore[arg-type]
    ranker.index(rows)
    same_as_rebuild(ranker, rows)
    rows = rows[1:] + [stored(topic(4), velocity=30.0, observations=1)]
    ranker.index(rows)
    same_as_rebuild(ranker, rows)

    # entries carrying their own heat history, passed again as the same objects: lent, not read
    entries = [RankerEntry(topic=r.topic, prior=TopicPrior(heat=r.topic.heat, velocity=r.velocity, is_new=r.is_new))
               for r in rows]
    ranker.index(entries)
    same_as_rebuild(ranker, entries)
    entries = entries[:5] + [RankerEntry(topic=topic(0), prior=TopicPrior(heat=3.0, velocity=60.0))] + entries[5:]
    ranker.index(entries)
    same_as_rebuild(ranker, entries)



def _delta(snapshot) -> tuple | None:
    d = snapshot.delta
    return None if d is None else (d.base, d.rows.tolist(), d.gone)


def _built_both_ways(ranker: Ranker, items: Sequence[object], monkeypatch: pytest.MonkeyPatch, *, bulk: bool,
                     step: int) -> None:
    """Build `items` on the ranker's snapshot with the bulk match and with the loop alone: one snapshot.

    `bulk`: whether the bulk match must answer this step itself (else it hands the step to the loop).
    Without that check a bulk match that never answers, or ignores the rows the caller names, passes
    every comparison below, since the loop then builds both sides."""
    from agent.ranking import snapshot as module

    answered: list[str] = []  # which finder gave each build its rows: "bulk", "named" or "loop"
    match, named_rows = module._match, module._named

    def spy_match(*args):
        found = match(*args)
        answered.append("bulk" if found is not None else "loop")
        return found

    def spy_named(*args):
        found = named_rows(*args)
        if found is not None:
            answered.append("named")
        return found

    previous = ranker.snapshot
    with monkeypatch.context() as m:
        m.setattr(module, "_match", spy_match)
        m.setattr(module, "_named", spy_named)
        fast = ranker.build(items)
        assert answered == (["bulk"] if bulk else ["loop"]), step
        m.setattr(module, "_match", lambda *_: None)
        slow = ranker.build(items)
        m.setattr(module, "_match", spy_match)
        # and with the caller naming the rows it passes again (as the topic index does), rightly or not
        rows = {id(x): j for j, x in enumerate(previous.items)}
        named = np.array([rows.get(id(x), -1) for x in items], dtype=np.int64)
        wrong = np.where(named >= 0, (named + 1) % max(len(previous), 1), -1)
        for passed, right in ((named, True), (wrong, np.array_equal(wrong, named))):
            answered.clear()
            told = ranker.build(items, passed_again=passed)
            # right names are taken as they are; a wrong one is caught and every row looked up instead
            assert answered[0] == "named" if right else answered[0] != "named"
            assert told.ids == slow.ids and told.items == slow.items and _delta(told) == _delta(slow)
            assert np.array_equal(told.heat, slow.heat) and np.array_equal(told.matrix, slow.matrix)
            for name in ("prior", "cjk", "velocity", "is_new"):
                assert np.array_equal(getattr(told, name), getattr(slow, name)), name
    assert fast.ids == slow.ids and fast.texts == slow.texts and fast.items == slow.items
    assert all(a is b or a == b for a, b in zip(fast.entries, slow.entries, strict=True))
    assert np.array_equal(fast.matrix, slow.matrix) and fast.tokens == slow.tokens
    for name in ("heat", "prior", "cjk", "velocity", "is_new"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert {s: r.tolist() for s, r in fast.rows_of.items()} == {s: r.tolist() for s, r in slow.rows_of.items()}
    assert [fast.lexical.scores(q).tolist() for q in QUERIES] == [slow.lexical.scores(q).tolist() for q in QUERIES]
    # and both hold what each row's own item says: a row lent to the wrong item fails here, whichever built it
    truth = build_snapshot(items, embedder=ranker.embedder, background=ranker.profile.calibration == "topic")
    assert fast.ids == truth.ids and np.array_equal(fast.cjk, truth.cjk)
    assert np.allclose(fast.heat, truth.heat) and np.allclose(fast.prior, truth.prior)
    assert np.array_equal(fast.velocity, truth.velocity) and np.array_equal(fast.is_new, truth.is_new)
    assert np.array_equal(fast.matrix, truth.matrix) and fast.tokens == truth.tokens
    # the rows read again are exactly those of items that are not the very objects `previous` held
    if slow.delta is not None:
        assert _delta(fast) == _delta(slow)
        assert slow.delta.rows.tolist() == [i for i, x in enumerate(items) if id(x) not in rows]
    assert ranker.snapshot is previous
    ranker.snapshot = fast


@pytest.mark.parametrize("embedder", [None, HashEmbedder()], ids=["lexical", "dense"])
def test_rows_passed_again_are_found_in_bulk_as_the_loop_finds_them(embedder, monkeypatch) -> None:
    held: list[object] = [topic(i) for i in range(9)]
    ranker = Ranker(embedder, held)
    grown = held + [topic(i) for i in (9, 10, 11)]
    # each row holds its own velocity and newness, so a row lent to the wrong item shows
    rows = [stored(t, velocity=float(k) - 3.0, observations=k % 3) for k, t in enumerate(held)]
    moved = rows[:0:-1] + [stored(topic(9), velocity=7.0, observations=1)]
    # an English headline its platform labels Chinese: the same key and text, another language
    relabelled = [stored(topic(3, lang="zh"), velocity=2.5, observations=4) if r.topic.item_id == "t3" else r
                  for r in moved]
    steps: list[tuple[list[object], bool]] = [
        (grown, True),  # new rows after the ones passed again
        # re-worded and re-heated in place; zhihu loses two rows and nothing else of its list changes,
        # so only the rows that left say its fair heat must be read again
        ([topic(2, title="全国多地迎来大范围降温")] + held[3:7] + [topic(7, heat=500.0)] + held[8:], True),
        (held[::-1], True),  # another order
        (rows, True),  # new objects, the same texts
        (moved, True),  # the same objects in another order, one gone, one new: their rows lent
        (relabelled, True),  # its script is read again, not lent
        (relabelled + [relabelled[2]], False),  # one object twice: the loop decides
        ([stored(topic(4, heat=9.0), velocity=1.0, observations=2)] + relabelled, False),  # a new object
        # under the key of a row passed again: the loop decides
    ]
    for step, (items, bulk) in enumerate(steps):
        _built_both_ways(ranker, items, monkeypatch, bulk=bulk, step=step)
