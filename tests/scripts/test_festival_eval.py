"""The festival night through the service (scripts/eval/festival.py), held at the figures it reached.

The real lists of 2024-02-09 and the conversations written about them live in ../shared, read in
place; without them the test skips, and under CI it fails, since a green run must mean it ran.
The figures are floors (hits, the gist) and ceilings (captions where none belongs, flicker) at
what the eval printed when they were set; a change that moves one says so here.
"""

from __future__ import annotations

import argparse

import pytest

from harness.servers import unavailable
from tests.conftest import load_script

festival = load_script("eval", "festival")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def result() -> dict:
    if not festival.DEVSET.is_file() or not festival.DAY_DIR.is_dir():
        unavailable(f"the festival night is not in ../shared ({festival.DEVSET}, {festival.DAY_DIR})")
    args = argparse.Namespace(gap=festival.GAP_S, profile="even-g1", embedder=None, devset=festival.DEVSET,
                              day_dir=festival.DAY_DIR, gate=[], dinners=False)
    return festival.evaluate(args)


def test_trend_lines_are_captioned_on_their_line_or_the_next(result: dict) -> None:
    total = result["total"]
    assert total["all"]["trend_lines"] == 20
    # 16 and 14 since a story said while the last caption is read is held back for the next line; 17
    # since it goes up by itself once that caption is read (the conversation's last meme too)
    assert total["all"]["hits"] >= 17
    assert total["by_lang"]["zh"]["hits"] >= 14


def test_the_captions_say_what_the_meme_is(result: dict) -> None:
    assert result["total"]["all"]["gist"] >= 10


def test_no_caption_where_none_belongs(result: dict) -> None:
    total = result["total"]["all"]
    # 1 since a Chinese line needs a word in common with a Chinese title ("腿都麻了" is not "赢麻了")
    assert total["small_captioned"] <= 1
    # at most one greeting captioned per conversation (the bar); one is, on a line that asks the
    # lists' own question (a 除夕 post's wording, 文案)
    assert all(c["greetings_captioned"] <= 1 for c in result["conversations"])
    assert total["greetings_captioned"] <= 1
    assert total["repeats"] == 0


def test_the_display_yields_to_new_memes_without_flicker(result: dict) -> None:
    total = result["total"]["all"]
    assert total["replaced_hit"] >= 14
    assert total["replaced"] - total["replaced_hit"] <= 1
