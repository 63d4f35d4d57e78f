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
