from __future__ import annotations

import pytest

from agent.captions import graphemes
from agent.captions.widths import column_width


@pytest.mark.parametrize(
    ("text", "clusters"),
    [
        ("👨\u200d👩\u200d👧\u200d👦", ["👨\u200d👩\u200d👧\u200d👦"]),
        ("🇨🇳🇺🇸🇯", ["🇨🇳", "🇺🇸", "🇯"]),
        ("👍🏽ok", ["👍🏽", "o", "k"]),
        ("❤️1️⃣", ["❤️", "1️⃣"]),
        ("e\u0301a", ["e\u0301", "a"]),
        ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", [
            "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
        ]),
        ("한국", ["한", "국"]),
        ("\u1100\u1161\u11a8", ["\u1100\u1161\u11a8"]),
    ],
)
def test_clusters(text: str, clusters: list[str]) -> None:
    assert list(graphemes(text)) == clusters


@pytest.mark.parametrize(
    ("cluster", "width"), [("a", 1), ("热", 2), ("，", 2), ("❤️", 2), ("🇨🇳", 2), ("é", 1), ("·", 1)]
)
def test_column_widths(cluster: str, width: int) -> None:
    assert column_width(cluster) == width


@pytest.mark.parametrize(
    ("text", "clusters"),
    [
        ("क्षि", ["क्षि"]),  # Devanagari conjunct (UAX #29, Unicode 15.1): one cluster, not two
        ("汤\u200c在", ["汤\u200c", "在"]),  # ZWNJ extends the previous character, it takes no column
        ("a\r\nb", ["a", "\r\n", "b"]),
    ],
)
def test_full_uax29_clusters(text: str, clusters: list[str]) -> None:
    assert list(graphemes(text)) == clusters


def test_widths_follow_current_unicode_not_the_python_build() -> None:
    assert column_width("\U00031350") == 2  # CJK Extension H (Unicode 15), unknown to Python 3.11
    assert column_width("\u0378") == 1  # unassigned: Python 3.11's unicodedata reports it full-width
