"""`RankQuery`: one ranking request as one value, with the service's defaults written once."""

from __future__ import annotations

import dataclasses

import pytest

from agent.ranking import RankQuery


def test_a_query_is_a_value_that_cannot_be_changed_in_flight():
    q = RankQuery(text="春晚机器人扭秧歌", top_k=3)
    same = RankQuery(text="春晚机器人扭秧歌", top_k=3)
    assert q == same and hash(q) == hash(same)
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.top_k = 10  # type: ignore[misc]


def test_every_field_is_named_by_the_caller():
    with pytest.raises(TypeError):
        RankQuery("春晚机器人扭秧歌", 3)  # type: ignore[misc]


def test_a_plain_query_asks_for_the_services_defaults():
    q = RankQuery(text="油价大跌")
    assert (q.top_k, q.prior, q.mmr, q.gate, q.gate_offset) == (5, True, True, False, 0.0)
    assert q.exclude == frozenset() and q.latest is None and q.latest_top_k == 0
