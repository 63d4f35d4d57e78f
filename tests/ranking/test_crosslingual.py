"""English speech about Chinese hot lists: the pair of scripts has its own gate.

A line in English about a Chinese title shares no words with it, so the lexical part of the
English gate is silent and, before the pair had its own bar, no such line was ever captioned.
The probes are synthetic (fixtures/relevance/crosslingual-synthetic, written by us); the lists
and the small talk are real (../shared, skipped without it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.ranking import EmbeddingCache, Ranker, build_embedder, profile_for
from agent.settings import Settings
from agent.testing import devsets

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
PROBES = ROOT / "fixtures" / "relevance" / "crosslingual-synthetic" / "en-about-zh-synthetic.json"
DAY = "2025-04-15"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (SHARED / "days" / DAY).exists(), reason="../shared/days not present")]


def test_the_probe_set_says_it_is_synthetic() -> None:
    assert "synthetic" in PROBES.name and json.loads(PROBES.read_text(encoding="utf-8"))["synthetic"] is True
    assert "Written by the TrendLens team" in (PROBES.parent / "README.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def day_ranker(tmp_path_factory):
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"))
    day = devsets.load_day(DAY, settings)
    ranker = Ranker(build_embedder(settings), day.topics,
                    cache=EmbeddingCache(tmp_path_factory.mktemp("cache") / "embeddings.sqlite3"))
    return ranker, day


def _right(ranker: Ranker, day) -> int:
    probes = json.loads(PROBES.read_text(encoding="utf-8"))["days"][DAY]
    said = ranker.rank_many_sync([p["text"] for p in probes], top_k=1, gate=True, prior=True)
    return sum(bool(r) and r[0].id in day.right_of[p["about"]] for r, p in zip(said, probes, strict=True))


def test_english_lines_about_a_days_chinese_stories_are_captioned(day_ranker) -> None:
    ranker, day = day_ranker
    assert profile_for(ranker.embedder.name).lang("en").cross_gate is not None  # what the service runs
    assert _right(ranker, day) >= 4
    ranker.profile = profile_for(ranker.embedder.name).with_lang("en", cross_gate=None)
    try:
        assert _right(ranker, day) == 0  # the English gate alone: silence
    finally:
        ranker.profile = profile_for(ranker.embedder.name)


def test_english_small_talk_stays_quiet_on_the_chinese_lists(day_ranker) -> None:
    ranker, _ = day_ranker
    chat = json.loads((SHARED / "devsets" / "chitchat.json").read_text(encoding="utf-8"))["en"][1::2]
    captioned = ranker.rank_many_sync(chat, top_k=1, gate=True, prior=True)
    assert sum(bool(r) for r in captioned) / len(chat) <= 0.05
