"""Every festival night through the service (scripts/eval/festival.py), held at the figures it reached.

The real lists of each night and the conversations written about them live in ../shared, read in
place; without them the test skips, and under CI it fails, since a green run must mean it ran.
The figures are floors (hits, the gist) and ceilings (captions where none belongs, flicker) at
what the eval printed when they were set; a change that moves one says so here.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from harness.servers import unavailable
from tests.conftest import load_script

festival = load_script("eval", "festival")

pytestmark = pytest.mark.slow


#: Each night's floors and ceilings, at what the eval printed when they were set (both nights: the lines
#: 3 s apart, a caption held back while the one before it is read going up by itself once it is read).
#: 2024-02-09 moved with a name spelt in another romanisation ("Nigmat", docs/relevance.md): hits 16 -> 17,
#: English 3 -> 4 of 5, the gist 10 -> 12; and with a summary that shares no word with its story's headlines
#: no gist (a Zhihu asker's musing under 刘谦's act), the gist 12 -> 13. 2026-02-16 moved with the story's item
#: picked by the line just said (the robots' drunken fist, not the chatbot driving them): hits 21 -> 22,
#: Chinese 17 -> 18, the gist 19 -> 20; and with two things an English line names agreeing in the headline its
#: meaning ranks first (the robots' kung fu, Yiwu's international sub-venue): hits 22 -> 23, English 4 -> 5.
#: 2026-02-16 moved with Weibo's rising and entertainment boards read on 2024-02-09 (`agent/sources/weibo.py`)
#: and the occasion's link model fitted again on the nights as now parsed: the gist 20 -> 19 (撒贝宁's eyebrows
#: merged with his age joke, whose summary then says the wrong meme); 2024-02-09's figures are unchanged.
#: 2026-02-16 moved with the occasion's word no term a gist sentence shares with its story's titles (the
#: robots' summary opens "…春晚拉开帷幕。"): the gist 19 -> 20.
#: 2026-02-16 moved with a weaker meme waiting three readings of a short caption at most, not its whole time
#: on screen (`GatePolicy.weaker_reads`): the flower goddess's English line goes up, hits 23 -> 24, English
#: 5 -> 6, the gist 20 -> 21; 2024-02-09's figures are unchanged.
#: 2026-02-16 moved with what the table points at as its own no lexical evidence (`ranking/deixis.py`: "这锅炖肉
#: 上面的浮沫"): small talk 1 -> 0.
#: Both nights moved with a new story replacing the caption once read when within 0.1 of its score
#: (`GatePolicy.replace_margin` -0.1, chosen over every replay: scripts/eval/festival_replays.py): on 2024-02-09 the
#: Messi refund goes up, hits 17 -> 18, Chinese 13 -> 14, the gist 13 -> 14, repeats 1 -> 0; 2026-02-16 unchanged.
#: A gist that is another meme's summary counts as off (`festival.told_by`), and the gist reads the members nearest
#: the matched title first and no summary keeping one of a duo the title names (`captions/gist.py`): 2024-02-09 the
#: gist 14 -> 15, off 2 -> 1 (撒贝宁's hat under his joke); 2026-02-16 the gist 21 -> 22, off 1 -> 0.
#: A member whose headline opens with a speaker the line (or the matched title) does not name is neither the item
#: shown nor the gist (`story_rank.one_per_story`, `captions/gist.py`): 2024-02-09 小尼's cards go up with an item about
#: them rather than 撒贝宁's quip, hits 18 -> 19, Chinese 14 -> 15, the gist 15 -> 16; 2026-02-16 unchanged.
FLOORS = {
    "2024-02-09": {"trend_lines": 20, "hits": 19, "zh_hits": 15, "en_hits": 4, "gist": 16, "gist_off": 1,
                   "small": 0, "greetings": 1, "repeats": 0, "flicker": 0},
    "2026-02-16": {"trend_lines": 25, "hits": 24, "zh_hits": 18, "en_hits": 6, "gist": 22, "gist_off": 0,
                   "small": 0, "greetings": 0, "repeats": 0, "flicker": 0},
}


@pytest.fixture(scope="module", params=sorted(FLOORS))
def night(request: pytest.FixtureRequest) -> tuple[dict, dict]:
    devset, day_dir = festival.night_paths(request.param)
    if not devset.is_file() or not day_dir.is_dir():
        unavailable(f"the festival night is not in ../shared ({devset}, {day_dir})")
    return festival.evaluate(festival.night_args(request.param)), FLOORS[request.param]


def test_every_festival_night_in_shared_has_floors() -> None:
    assert set(festival.nights()) <= set(FLOORS)


def test_trend_lines_are_captioned_on_their_line_or_the_next(night: tuple[dict, dict]) -> None:
    result, floor = night
    total = result["total"]
    assert total["all"]["trend_lines"] == floor["trend_lines"]
    assert total["all"]["hits"] >= floor["hits"]
    assert total["by_lang"]["zh"]["hits"] >= floor["zh_hits"]
    assert total["by_lang"]["en"]["hits"] >= floor["en_hits"]


def test_each_meme_of_the_shared_occasion_gets_its_own_caption(night: tuple[dict, dict]) -> None:
    """The Gala is an occasion, not one story: no meme of it is kept off the display as "already shown"
    because another meme of the night was."""
    result, _ = night
    for conv in result["conversations"]:
        for miss in conv["misses"]:
            assert not miss["why"].startswith("duplicate"), (conv["id"], miss)
            assert not (miss["next"] or "").startswith("duplicate"), (conv["id"], miss)


def test_the_captions_say_what_the_meme_is(night: tuple[dict, dict]) -> None:
    result, floor = night
    total = result["total"]["all"]
    assert total["gist"] >= floor["gist"]
    assert 2 * total["gist"] >= total["hits"]  # on at least half of the hits, every night
    assert total["gist_off"] <= floor["gist_off"]  # and not what another entry, of another meme or none, says


def test_no_caption_where_none_belongs(night: tuple[dict, dict]) -> None:
    result, floor = night
    total = result["total"]["all"]
    assert total["small_captioned"] <= floor["small"]
    # at most one greeting captioned per conversation (the bar)
    assert all(c["greetings_captioned"] <= 1 for c in result["conversations"])
    assert total["greetings_captioned"] <= floor["greetings"]
    assert total["repeats"] <= floor["repeats"]


def test_the_display_yields_to_new_memes_without_flicker(night: tuple[dict, dict]) -> None:
    result, floor = night
    total = result["total"]["all"]
    assert total["replaced"] - total["replaced_hit"] <= floor["flicker"]


def _replay(day: str, **changes: object) -> dict:
    """One festival night of ../shared through the eval at the judged pace, with `changes` to its arguments."""
    devset, day_dir = festival.night_paths(day)
    if not devset.is_file() or not day_dir.is_dir():
        unavailable(f"the festival night is not in ../shared ({devset}, {day_dir})")
    return festival.evaluate(festival.night_args(day, **changes))


#: A night replayed on two of its lists (`--lists`): Zhihu and Douyin carry titles and a few excerpts, the
#: shape of a held-out night whose gist had to come from another platform's title (docs/relevance.md, "The
#: gist on a night of thin lists"). Floors at what the eval printed when they were set.
#: With a weaker meme waiting three readings at most: hits 16 -> 18, the gist 7 -> 9, small talk 2 -> 1; with
#: an akin entry of the item's own list as the last gist (沈腾, 0713, 谭爷爷 on Douyin): the gist 9 -> 12; with a
#: headline naming the person on screen kept as its caption's story, small talk 1 -> 0. Weibo and Douyin, and
#: Douyin alone (titles only, so no gist), held since a two-character name said is a short title's whole match.
#: Wrong captions on Douyin alone 5 -> 3: a headline met only on words said under the caption, and one met on
#: the edge of a name said, no longer replace the caption. With `replace_margin` -0.1: Weibo and Douyin hits 18 -> 19,
#: the gist 7 -> 8; Douyin alone hits 13 -> 14. With a name said in English weighing on one short list what it
#: weighs on a day's lists (`bridges.NAME_REF_N`): 2026-02-16's Douyin alone hits 14 -> 15, and 2024-02-09's
#: Douyin alone (55 titles) 14 -> 17, the English guest 1 -> 4 of 5. With a name capitalised inside an English
#: line reaching a question that names the person after other words: Zhihu alone's English guest 1 -> 2 of 3. With a
#: person's name said counting as agreement: Weibo alone's English guest 2 -> 3 of 4, its wrong captions 2 -> 1.
#: Baidu alone, where a quote (某主持人：…) is a story of its own: with a story that shares a word of the line put
#: before a quote of someone the line does not name, hits 15 -> 16, wrong captions 3 -> 2.
THIN = {("2024-02-09", "zhihu,douyin"): {"trend_lines": 19, "hits": 18, "gist": 12, "small": 0, "greetings": 1,
                                         "wrong": 0},
        ("2024-02-09", "weibo,douyin"): {"trend_lines": 20, "hits": 19, "gist": 8, "small": 0, "greetings": 0,
                                         "wrong": 0},
        ("2024-02-09", "douyin"): {"trend_lines": 19, "hits": 17, "en_hits": 4, "gist": 1, "small": 0,
                                   "greetings": 0, "wrong": 1},
        ("2024-02-09", "weibo"): {"trend_lines": 18, "hits": 15, "en_hits": 3, "gist": 0, "small": 0,
                                  "greetings": 0, "wrong": 1},
        ("2024-02-09", "baidu"): {"trend_lines": 20, "hits": 16, "en_hits": 3, "gist": 8, "small": 0,
                                  "greetings": 0, "wrong": 2},
        ("2024-02-09", "zhihu"): {"trend_lines": 12, "hits": 11, "en_hits": 2, "gist": 4, "small": 0,
                                  "greetings": 1, "wrong": 1},
        ("2026-02-16", "douyin"): {"trend_lines": 19, "hits": 15, "gist": 0, "small": 0, "greetings": 0, "wrong": 3}}


@pytest.mark.parametrize(("day", "lists"), sorted(THIN))
def test_a_night_of_thin_lists_still_captions_its_memes_and_says_what_some_are(day: str, lists: str) -> None:
    result = _replay(day, lists=lists.split(","))["total"]
    total, floor = result["all"], THIN[day, lists]
    assert result["by_lang"]["en"]["hits"] >= floor.get("en_hits", 0)
    assert total["trend_lines"] == floor["trend_lines"]  # the line about no item of these lists is left out
    assert total["hits"] >= floor["hits"] and total["gist"] >= floor["gist"]
    assert total["small_captioned"] <= floor["small"] and total["greetings_captioned"] <= floor["greetings"]
    assert total["wrong"] <= floor["wrong"]  # a caption of another meme on a trend line, or one that replaced it


#: Each night with a tenth of every Chinese line's characters heard as another of the same pinyin (`--homophones`,
#: seeded, drawn afresh per night), floors at what the eval printed when they were set: with a name so misheard
#: read as the headlines spell it (`PinyinNames.misheard`), 2026-02-16 21 -> 23 and its gist 18 -> 20.
HEARD = {"2024-02-09": {"hits": 16, "gist": 12, "small": 0}, "2026-02-16": {"hits": 23, "gist": 20, "small": 0}}


@pytest.mark.parametrize("day", sorted(HEARD))
def test_a_name_the_recogniser_misheard_is_still_captioned(day: str) -> None:
    total = _replay(day, homophones=0.1)["total"]["all"]
    floor = HEARD[day]
    assert total["hits"] >= floor["hits"] and total["gist"] >= floor["gist"]
    assert total["small_captioned"] <= floor["small"]


def test_with_homophones_a_chinese_line_is_heard_in_characters_of_the_same_sound() -> None:
    from pypinyin import Style, lazy_pinyin

    if not (festival.SHARED / "devsets" / "relevance.json").is_file():
        unavailable("the dev sets the substitutes are drawn from are not in ../shared")
    line = "刘涛都上了九回春晚了，她一出来我就想接个福。"
    heard = festival.spoken(argparse.Namespace(homophones=0.3), line, "zh")[0]
    assert heard != line and len(heard) == len(line)
    def sound(text: str) -> list[list[str]]:  # each character alone, as the substitutes were chosen
        return [lazy_pinyin(c, style=Style.TONE3) for c in text]

    assert sound(heard) == sound(line)
    english = "Did you see the magic trick?"
    assert festival.spoken(argparse.Namespace(homophones=0.3), english, "en") == (english,)


def _fixture_night(name: str, day: str, gap: float) -> dict:
    """A table written here (`fixtures/festival/`, synthetic) said on a night's real lists."""
    devset = Path(__file__).resolve().parents[2] / "fixtures" / "festival" / name
    _, day_dir = festival.night_paths(day)
    if not day_dir.is_dir():
        unavailable(f"the festival night's lists are not in ../shared ({day_dir})")
    return festival.evaluate(festival.night_args(day, devset=devset, gap=gap))


@pytest.mark.parametrize(("day", "most"), [("2024-02-09", 2), ("2026-02-16", 0)])
def test_a_tables_customs_stay_quiet_on_either_night(day: str, most: int) -> None:
    """`fixtures/festival/customs.json` (synthetic): thirty lines of a 除夕 table's customs and talk, 12 s apart
    so that no caption's time on screen hides another; at most what the eval printed when this was set
    (docs/relevance.md, "A table's customs on any night": 6 and 4 before; 2026-02-16 1 -> 0 with a word shared and
    a meaning not, "春晚快开始了，把电视声音调大点")."""
    total = _fixture_night("customs.json", day, 12.0)["total"]["all"]
    assert total["small_lines"] == 30 and total["small_captioned"] <= most


#: Each night's own conversations with the lines 12 s apart (`--gap 12`): no caption is on screen when a line is
#: said, so the display hides no small-talk line the gate let through. At most / at least what the eval printed when
#: this was set; 2026-02-16 went 3 -> 0 small-talk lines and 24 -> 25 hits with a title that shares a word with the
#: line just said but not its meaning kept off the gate (`scoring.meant`, docs/relevance.md).
FREE = {"2024-02-09": {"hits": 18, "small": 1, "greetings": 1}, "2026-02-16": {"hits": 25, "small": 0, "greetings": 0}}


@pytest.mark.parametrize("day", sorted(FREE))
def test_small_talk_stays_quiet_when_the_display_is_free(day: str) -> None:
    total = _replay(day, gap=12.0)["total"]["all"]
    floor = FREE[day]
    assert total["hits"] >= floor["hits"]
    assert total["small_captioned"] <= floor["small"] and total["greetings_captioned"] <= floor["greetings"]


def test_talking_points_nobody_labelled_are_captioned_by_name() -> None:
    """`fixtures/festival/unlabelled-2024-02-09.json` (synthetic): 2024-02-09's unlabelled talking points by name
    in Chinese and English, and described; floors at what the eval printed when they were set."""
    by_id = {c["id"]: c for c in _fixture_night("unlabelled-2024-02-09.json", "2024-02-09", festival.GAP_S)
             ["conversations"]}
    assert by_id["names-zh"]["hits"] >= 13 and by_id["names-en"]["hits"] >= 8
    assert by_id["described-zh"]["hits"] >= 7
    assert sum(c["small_captioned"] for c in by_id.values()) == 0


# 2024-02-09 moved with Weibo's side boards read: zh 1 -> 0, en 5 -> 6 ("Don't go to too much trouble." meets
# the entertainment board's 好运留下来 烦恼丢出去 by meaning alone)
@pytest.mark.parametrize(("day", "most"), [("2024-02-09", {"zh": 0, "en": 6}), ("2026-02-16", {"zh": 0, "en": 8})])
def test_real_small_talk_stays_quiet_on_a_festival_nights_lists(day: str, most: dict[str, int]) -> None:
    """`../shared/devsets/chitchat.json` (real: 400 lines per language) said on the night's lists, 12 s apart:
    at most what the eval printed when this was set (`festival.py --chitchat --gap 12`)."""
    _, day_dir = festival.night_paths(day)
    if not day_dir.is_dir():
        unavailable(f"the festival night's lists are not in ../shared ({day_dir})")
    by_lang = festival.evaluate(festival.night_args(day, gap=12.0, chitchat=True))["total"]["by_lang"]
    for lang, ceiling in most.items():
        assert by_lang[lang]["small_lines"] == 400 and by_lang[lang]["small_captioned"] <= ceiling, lang


def test_with_asr_a_line_arrives_as_a_recognisers_two_pieces() -> None:
    asr = argparse.Namespace(asr=True)
    assert festival.spoken(asr, "刚才那个魔术，你们看了吗？", "zh") == ("刚才那个魔", "术你们看了吗")
    assert festival.spoken(asr, "Did you see the magic trick?", "en") == ("did you see", "the magic trick")
    written = "刚才那个魔术，你们看了吗？"
    assert festival.spoken(argparse.Namespace(asr=False), written, "zh") == (written,)
