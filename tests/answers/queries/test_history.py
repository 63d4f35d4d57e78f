"""The kept history answers for items no longer listed: a search by words within a period, and two
periods compared (on both databases, through the store's own observations)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.answers.queries.history import compare_periods, heat_over_time, search_history
from agent.collect.fetching import SourceOutcome
from agent.errors import InputError
from agent.models import Topic
from agent.store import Store

NOW = datetime(2024, 2, 9, 21, 30, tzinfo=UTC)
WEEK_AGO = NOW - timedelta(days=7)


def _t(source: str, item: str, title: str, rank: int, heat: float) -> Topic:
    return Topic(source=source, item_id=item, title=title, rank=rank, heat=heat, lang="zh")


def _lists(store: Store) -> None:
    # last week: the tariff story and a robot story; tonight: the robot story again, higher, and the Gala
    store.record_cycle([SourceOutcome(source="weibo", topics=[_t("weibo", "a", "美国加征关税 多国回应", 3, 5e6),
                                                _t("weibo", "r", "机器人扭秧歌", 9, 1e6)])], now=WEEK_AGO)
    tonight = [_t("weibo", "r", "机器人扭秧歌", 2, 8e6), _t("weibo", "g", "春晚节目单公布", 1, 9e6)]
    store.record_cycle([SourceOutcome(source="weibo", topics=tonight)], now=NOW - timedelta(minutes=1))


async def test_a_search_finds_an_item_no_longer_listed_in_its_period(store: Store) -> None:
    _lists(store)
    span, found = await search_history(store, "关税", "last 8 days", now=NOW)
    assert [s.title for s in found] == ["美国加征关税 多国回应"] and found[0].best_rank == 3
    assert span.since == NOW - timedelta(days=8)
    _, none = await search_history(store, "关税", "today", now=NOW)
    assert none == []  # tonight's lists do not hold it
    _, robots = await search_history(store, "机器人 !关税", "last 8 days", now=NOW)
    assert [(s.title, s.best_rank, s.seen) for s in robots] == [("机器人扭秧歌", 2, 2)]


async def test_two_periods_compared(store: Store) -> None:
    _lists(store)
    c = await compare_periods(store, "2024-02-02", "today", now=NOW)
    assert [s.title for s in c.arrived] == ["春晚节目单公布"]
    assert [s.title for s in c.left] == ["美国加征关税 多国回应"]
    assert [(a.best_rank, b.best_rank) for a, b in c.stayed] == [(9, 2)]  # the robots climbed


async def test_one_items_heat_over_time(store: Store) -> None:
    _lists(store)
    robot = _t("weibo", "r", "机器人扭秧歌", 2, 8e6)
    [line] = await heat_over_time(store, [robot])
    assert [(p.rank, p.heat) for p in line.points] == [(9, 1e6), (2, 8e6)]


async def test_a_bad_search_is_one_clear_line(store: Store) -> None:
    with pytest.raises(InputError, match="^words: "):
        await search_history(store, "/[/", "today", now=NOW)
    with pytest.raises(InputError, match="^words: a ~meaning"):
        await search_history(store, "~机器人跳舞", "today", now=NOW)
    with pytest.raises(InputError, match="^period: "):
        await search_history(store, "关税", "someday", now=NOW)
