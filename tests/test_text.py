"""agent/text.py: the one Han range, and heat written one way on every surface."""

from __future__ import annotations

import re

import pytest

from agent.answers.digest import _platform_label
from agent.captions.templates import meta_line
from agent.text import HAN_CHAR, format_heat, has_han, is_han
from harness.paths import ROOT


def test_the_han_range_holds_han_only() -> None:
    assert has_han("春晚") and is_han("龍") and is_han("㐀") and is_han("豈")  # unified, extension A, compatibility
    for other in ("서울", "ひらがな", "カタカナ", "abc", "123", "，。"):
        assert not has_han(other), other


def test_no_module_writes_a_han_range_of_its_own() -> None:
    # a range written by hand drifts (one copy matched Korean): every module reads agent/text.py
    literal = re.compile(r"\\u(3400|4e00|9fff|9fa5)|[\u4e00]-[\u9fa5\u9fff]")
    copies = [str(p.relative_to(ROOT)) for folder in ("agent", "harness") for p in (ROOT / folder).rglob("*.py")
              if p.name != "text.py" and literal.search(p.read_text(encoding="utf-8"))]
    assert copies == []
    assert HAN_CHAR.pattern.startswith("[\\u3400")


@pytest.mark.parametrize(("heat", "zh", "en"), [
    (None, "", ""), (0, "", ""), (9_999, "9999", "10k"), (12_345, "1.2万", "12k"), (18_540_000, "1854万", "19M"),
    (310_000_000, "3.1亿", "310M"), (3_200_000_000, "32亿", "3.2B"),
])
def test_heat_is_written_one_way(heat: float | None, zh: str, en: str) -> None:
    assert (format_heat(heat, "zh"), format_heat(heat, "en")) == (zh, en)


def test_caption_and_digest_write_the_same_heat() -> None:
    caption = meta_line([("baidu", 1)], trend="steady", heat=12_345, lang="zh", emoji=False)
    digest = _platform_label({"source": "baidu", "rank": 1, "heat": 12_345}, "zh")
    assert caption.endswith("1.2万") and digest.endswith("1.2万")
