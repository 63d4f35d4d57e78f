"""Words that say when come from a calendar, not from a list of the labelled days' holidays."""

from __future__ import annotations

from pathlib import Path

from agent.stories.calendar_words import calendar_names
from agent.stories.terms import story_terms

ROOT = Path(__file__).resolve().parents[2]


def test_the_calendars_festivals_join_no_term() -> None:
    names = calendar_names()
    for festival in ("除夕", "春节", "中秋", "清明", "愚人节", "情人节", "元宵节", "母亲节"):
        assert festival in names, festival
    # two stories of one holiday share its name and nothing else
    assert not story_terms("愚人节快乐").terms & story_terms("愚人节表白").terms
    assert not story_terms("中秋节假期出游").terms & story_terms("中秋节月饼涨价").terms


def test_no_festival_name_is_written_in_the_story_terms() -> None:
    source = (ROOT / "agent" / "stories" / "terms.py").read_text(encoding="utf-8")
    written = [n for n in calendar_names() if n in source]
    assert written == [], written


def test_a_day_named_with_its_place_is_that_place_s_own_event() -> None:
    """Synthetic titles: a province's own celebration of a holiday is one event; the holiday alone, or
    another province's, is not."""
    henan = story_terms("河南春节晚会节目单公布").terms & story_terms("河南春节晚会收视创新高").terms
    assert "河南春节" in henan
    assert "河南春节" not in story_terms("北京春节庙会开幕").terms
    assert not story_terms("北京春节庙会开幕").terms & story_terms("春节高铁票开抢").terms


def test_a_year_named_by_its_animal_joins_no_term() -> None:
    """Synthetic titles: the year's animal says which year, as 2024 does: a question about one act of the
    year's gala and a year's greeting share it and nothing else."""
    act = story_terms("如何评价虎年晚会林夏的相声《各回各家》？").terms
    assert not act & story_terms("虎年第一条祝福").terms
    assert not story_terms("兔年开运红妆").terms & story_terms("兔年祝福语有哪些").terms
    assert "相声" in act
