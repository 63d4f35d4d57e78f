"""A festival night in the shared format, whatever shape each list was recorded in (scripts/eval/festival.py).

A held-out night is judged the way the dev nights are, and its recorders may have saved another endpoint than
ours did: Weibo's summary page (HTML) rather than its mobile API, Zhihu's page rather than its API. The eval
must serve such a night as recorded, and a folder it cannot read must stop it with one line that says why.
The recordings are the real ones of ../shared/upstream, read in place.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from agent.settings import Settings
from agent.sources import source_class
from harness.festival_format import read_devset
from harness.paths import SHARED
from harness.servers import unavailable
from harness.story_days import NightError, parse_lists, recording
from tests.conftest import load_script
from tests.sources.mock_http import fetch_with

festival = load_script("eval", "festival")

UPSTREAM = SHARED / "upstream"
#: A night whose Weibo and Zhihu lists are their pages, beside an API's JSON
RECORDED = {"weibo": "s-summary-realtimehot-2021-09-21.html", "zhihu": "topsearch-2025-04-15.html",
            "v2ex": "hot-2025-04-15.json"}


@pytest.fixture
def night(tmp_path: Path) -> Path:
    day = tmp_path / "days" / "2099-01-01"
    for source, name in RECORDED.items():
        if not (UPSTREAM / source / name).is_file():
            unavailable(f"the upstream recording is not in ../shared ({source}/{name})")
        (day / source).mkdir(parents=True)
        shutil.copy(UPSTREAM / source / name, day / source / name)
    (day / "weibo" / "PROVENANCE.md").write_text("where it came from\n", encoding="utf-8")
    return day


def parsed(day: Path, source: str) -> list[str]:
    body = (day / source / RECORDED[source]).read_bytes()
    return [t.title for t in source_class(source).from_settings(Settings()).parse_body(body)]


async def test_each_list_is_served_as_recorded_whatever_its_shape(night: Path) -> None:
    transport = festival.day_transport(night)
    assert festival.night_sources(night) == ["v2ex", "weibo", "zhihu"]
    for source in RECORDED:
        got = await fetch_with(source_class(source).from_settings(Settings()), transport.handle_request)
        titles = [t.title for t in got]
        assert titles == parsed(night, source) and len(titles) >= 8, source


async def test_a_list_the_night_does_not_hold_is_not_answered(night: Path) -> None:
    transport = festival.day_transport(night, ["weibo"])
    zhihu = source_class("zhihu").from_settings(Settings())
    with pytest.raises(Exception, match="404"):
        await fetch_with(zhihu, transport.handle_request)


def test_the_story_days_read_the_same_recordings(night: Path) -> None:
    lists, _ = parse_lists(night.name, night.parent.parent)
    assert {s: [t.title for t in ts] for s, ts in lists.items()} == {s: parsed(night, s) for s in RECORDED}


def test_a_folder_with_two_recordings_or_none_says_so(night: Path) -> None:
    shutil.copy(UPSTREAM / "weibo" / "s-summary-realtimehot-2021-09-22.html", night / "weibo")
    with pytest.raises(NightError, match=r"weibo: expected one recorded list, found 2 \(s-summary"):
        recording(night / "weibo")
    (night / "tieba").mkdir()
    with pytest.raises(NightError, match="tieba: expected one recorded list, found 0 .none."):
        recording(night / "tieba")


def test_a_folder_named_for_no_source_stops_the_eval_with_one_line(night: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (night / "weibo-hot-hub").mkdir()
    devset = tmp_path / "festival.json"
    devset.write_text('{"day": "2099-01-01", "trends": [], "conversations": []}', encoding="utf-8")
    assert festival.main(["--devset", str(devset), "--day-dir", str(night)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "no source is named weibo-hot-hub" in err and "Traceback" not in err


GOOD = {"day": "2099-01-01", "trends": [{"id": "robots", "items": [{"source": "weibo", "title": "机器人"}]}],
        "conversations": [{"id": "family-1", "lang": "zh", "lines": [
            {"text": "那帮机器人你们看见没", "kind": "trend", "trend": "robots", "gist": "机器人上春晚"},
            {"text": "可不是", "kind": "cont", "trend": "robots"},
            {"text": "这鱼真好吃", "kind": "small", "near": []}]}]}


@pytest.mark.parametrize(("change", "says"), [
    (lambda d: d["conversations"][0]["lines"][2].update(kind="chat"), "conversations.0.lines.2.kind: Input should be"),
    (lambda d: d["conversations"][0]["lines"][1].pop("trend"), "a cont line names its meme"),
    (lambda d: d["conversations"][0]["lines"][0].update(trend="robot"), "no trend is named 'robot'"),
    (lambda d: d["conversations"][0].update(lang="fr"), "conversations.0.lang"),
    (lambda d: d.pop("trends"), "trends: Field required"),
])
def test_a_conversation_file_out_of_the_format_stops_the_eval_with_the_field_named(
        night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: object, says: str) -> None:
    data = copy.deepcopy(GOOD)
    change(data)  # type: ignore[operator]
    devset = tmp_path / "festival.json"
    devset.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert festival.main(["--devset", str(devset), "--day-dir", str(night)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and says in err and "Traceback" not in err


def test_a_file_that_is_not_json_says_where(night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    devset = tmp_path / "festival.json"
    devset.write_text('{"trends": [', encoding="utf-8")
    assert festival.main(["--devset", str(devset), "--day-dir", str(night)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not JSON" in err and "line 1" in err


def test_the_nights_and_tables_we_hold_are_in_the_format() -> None:
    held = sorted((SHARED / "devsets").glob("festival-*.json")) + sorted(
        (Path(__file__).parents[2] / "fixtures" / "festival").glob("*.json"))
    assert len(held) >= 2
    for path in held:
        assert read_devset(path)["conversations"], path
