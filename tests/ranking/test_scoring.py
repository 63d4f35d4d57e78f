"""Scoring's calibration: the relevance bar the gate reads."""

from __future__ import annotations

from agent.ranking import HashEmbedder, Ranker, expected_max_z, profile_for

from .conftest import make_topic


def test_gate_bar_rises_with_corpus_size() -> None:
    assert expected_max_z(100_000) > expected_max_z(1000) > expected_max_z(10) > 0
    small = Ranker(HashEmbedder(), [make_topic("s", str(i), f"title {i}") for i in range(5)])
    big = Ranker(HashEmbedder(), [make_topic("s", str(i), f"title {i}") for i in range(2000)])
    assert big.gate_threshold() > small.gate_threshold()
    assert Ranker(None, []).gate_threshold() == profile_for(None).lang("zh").gate_lexical

