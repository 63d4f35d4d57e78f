"""Every replay of the festival nights in one command (scripts/eval/festival_replays.py): the shapes a held-out night
may take, each replayed through festival.py, summed, and two runs compared."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from harness.servers import unavailable
from tests.conftest import load_script

replays = load_script("eval", "festival_replays")


def _night(root: Path, *lists: str) -> Path:
    for name in lists:
        (root / name).mkdir(parents=True)
    return root


def test_each_night_gets_every_replay_and_its_own_lists_two_and_one_at_a_time(tmp_path: Path) -> None:
    fixed = list(replays.REPLAYS)
    four = replays.plan("n4", _night(tmp_path / "four", "baidu", "douyin", "weibo", "zhihu"))
    names = [r.name for r in four]
    assert names[:len(fixed)] == fixed and names[0] == "3 s"  # the judged pace first
    assert len(names) == len(fixed) + 6 + 4
    pair = next(r for r in four if r.name == "douyin + zhihu")
    assert pair.args == {"lists": ["douyin", "zhihu"]} and pair.night == "n4"
    assert next(r for r in four if r.name == "weibo alone").args == {"lists": ["weibo"]}
    # a night of two lists: its pair is the night itself, so each list alone only
    two = replays.plan("n2", _night(tmp_path / "two", "baidu", "douyin"))
    assert [r.name for r in two][len(fixed):] == ["baidu alone", "douyin alone"]
    assert [r.name for r in replays.plan("n1", _night(tmp_path / "one", "zhihu"))] == fixed
    assert [r.name for r in replays.plan("n4", tmp_path / "four", ["speech", "zhihu alone"])] == ["speech",
                                                                                                   "zhihu alone"]


def test_a_row_counts_flicker_and_the_objective_the_display_was_chosen_by() -> None:
    total = {"trend_lines": 20, "hits": 17, "small_captioned": 1, "greetings_captioned": 1, "wrong": 2, "gist": 13,
             "replaced": 12, "replaced_hit": 10}
    r = replays.row(replays.Replay("n", "3 s"), total)
    assert r["flicker"] == 2  # two replacements put no trend line's caption up
    assert r["objective"] == 17 - 1 - 1 - 2


def test_the_sums_and_the_worst_replay() -> None:
    def r(name: str, hits: int, lines: int, small: int) -> dict:
        return replays.row(replays.Replay("n", name), {"trend_lines": lines, "hits": hits, "small_captioned": small})

    total = replays.summary([r("3 s", 17, 20, 0), r("baidu alone", 14, 20, 1), r("speech", 14, 20, 3)])
    assert total["replays"] == 3 and total["hits"] == 45 and total["trend_lines"] == 60
    assert total["objective"] == 45 - 4
    assert total["worst"]["replay"] == "speech"  # the same share captioned, more small talk


def _run(tmp_path: Path, name: str, hits: int, small: int) -> Path:
    rows = [replays.row(replays.Replay("n", "3 s"), {"trend_lines": 20, "hits": hits, "small_captioned": small}),
            replays.row(replays.Replay("n", "speech"), {"trend_lines": 20, "hits": 15})]
    path = tmp_path / name
    path.write_text(json.dumps({"gate": [], "rows": rows, "total": replays.summary(rows)}), encoding="utf-8")
    return path


def test_two_runs_compared_say_what_moved_and_nothing_else(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert replays.main(["--compare", str(_run(tmp_path, "a.json", 17, 0)), str(_run(tmp_path, "b.json", 18, 1))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "n 3 s: hits 17 -> 18, small_captioned 0 -> 1"
    assert not any(line.startswith("n speech") for line in out)  # unchanged
    assert out[-1].startswith("all: hits 32 -> 33, small_captioned 0 -> 1") and out[-1].endswith("objective 32 -> 32")


def test_a_run_from_before_a_figure_was_counted_reads_it_as_zero(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    old = json.loads(_run(tmp_path, "old.json", 17, 0).read_text(encoding="utf-8"))
    for r in [*old["rows"], old["total"]]:
        r.pop("gist_off")  # a run written before the off-gist lines were counted
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    new = _run(tmp_path, "new.json", 17, 0)
    data = json.loads(new.read_text(encoding="utf-8"))
    data["rows"][0]["gist_off"] = 2
    data["total"]["gist_off"] = 2
    new.write_text(json.dumps(data), encoding="utf-8")
    assert replays.main(["--compare", str(tmp_path / "old.json"), str(new)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "n 3 s: gist_off 0 -> 2" and "gist_off 0 -> 2" in out[-1]


def test_a_caption_ending_on_another_entrys_title_is_counted_off_its_meme() -> None:
    """Synthetic titles. A caption's last lines that are another list entry's title (whole, or cut with "…" to the
    display's width) name what that entry is labelled under; one labelled under no meme, or another, is off."""
    festival = replays.festival
    listed = {"某队友谊赛取消": "match", "某城人的年夜饭菜单": None, "主办方称友谊赛取消因条件不成熟": "match"}
    off = {"title": "某队友谊赛取消", "lines": ["某队友谊赛取消", "新 抖音#32 · 微博", "某城人的年夜饭菜单"]}
    on = {"title": "某队友谊赛取消", "lines": ["某队友谊赛取消", "新 抖音#32", "主办方称友谊赛取消因…"]}
    said = {"title": "某队友谊赛取消", "lines": ["某队友谊赛取消", "新 抖音#32", "体育局称举办条件不成熟。"]}
    assert festival.told_by(off, listed) == [None] and festival.off_gist({**off, "told_by": [None]}, "match")
    assert festival.told_by(on, listed) == ["match"] and not festival.off_gist({**on, "told_by": ["match"]}, "match")
    assert festival.told_by(said, listed) == []  # a summary's sentence is the item's own text, no entry's title


def test_a_caption_ending_on_another_memes_summary_is_counted_off_its_meme() -> None:
    """Synthetic titles and summaries. A last line that is a piece of an entry's summary, wrapped over the display's
    lines, is told by that entry: one of another meme (a person's other moment of the night) is off."""
    festival = replays.festival
    listed = {"某主持人眉毛又火了": "brows", "某主持人和搭档加起来100岁了": "ages"}
    summaries = {"今晚舞台上，某主持人与搭档读到网友留言：两位老师年龄加起来正好100岁。": "ages",
                 "某主持人的眉毛又出现了。": "brows"}
    other = {"title": "某主持人眉毛又火了", "lines": ["某主持人眉毛又火了", "新 抖音#9", "某主持人与搭档读到网友留",
                                                  "言：两位老师年龄加起来正好100岁。"]}
    own = {"title": "某主持人眉毛又火了", "lines": ["某主持人眉毛又火了", "新 抖音#9", "某主持人的眉毛又出现了。"]}
    assert festival.told_by(other, listed, summaries) == ["ages"] and festival.off_gist({"told_by": ["ages"]}, "brows")
    assert festival.told_by(own, listed, summaries) == ["brows"]
    assert festival.told_by(own, listed) == []  # without the summaries, only titles tell


def test_a_file_that_is_not_a_run_is_one_line_not_a_traceback(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert replays.main(["--compare", str(bad), str(_run(tmp_path, "a.json", 17, 0))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("festival replays: cannot compare") and len(err.strip().splitlines()) == 1


def test_a_replay_no_night_has_is_named_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    devset, day_dir = replays.festival.night_paths("2026-02-16")
    if not devset.is_file() or not day_dir.is_dir():
        unavailable(f"the festival night is not in ../shared ({devset}, {day_dir})")
    assert replays.main(["--night", "2026-02-16", "--replays", "weibo alone"]) == 2  # that night holds no Weibo list
    assert capsys.readouterr().err == "festival replays: no replay is named weibo alone\n"


@pytest.mark.slow
def test_a_replay_is_the_festival_eval_with_its_arguments() -> None:
    night = "2026-02-16"
    devset, day_dir = replays.festival.night_paths(night)
    if not devset.is_file() or not day_dir.is_dir():
        unavailable(f"the festival night is not in ../shared ({devset}, {day_dir})")
    base = argparse.Namespace(profile="even-g1", embedder=None, gate=[])
    judged, alone = replays.run(replays.plan(night, day_dir, ["3 s", "douyin alone"]), base)
    direct = replays.festival.evaluate(replays.festival.night_args(night))
    assert judged == replays.row(replays.Replay(night, "3 s"), direct["total"]["all"])
    # Douyin alone holds 19 of the night's 25 trend lines' memes (tests/scripts/test_festival_eval.py, THIN)
    assert alone["replay"] == "douyin alone" and alone["trend_lines"] == 19
