"""Whatever the text, a fitted caption stays inside the display's limits."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.captions import PROFILES, fit_text

PROFILE_NAMES = st.sampled_from(sorted(PROFILES))
EMOJI = ["👨\u200d👩\u200d👧\u200d👦", "🏳️\u200d🌈", "🇨🇳", "👍🏽", "❤️", "🎉", "1️⃣"]
PIECES = st.one_of(
    st.text(max_size=20),  # arbitrary unicode: controls, combining marks, astral planes
    st.text(alphabet="热搜话题微博今天的天气，。！？、「」《》（）“”…", max_size=30),
    st.text(alphabet="abcdefghij XYZ.,!?-'", max_size=30),
    st.sampled_from(EMOJI),
    st.just(" "),
)
TEXTS = st.lists(PIECES, max_size=40).map("".join)


def _check(lines: list[str], name: str, max_lines: int | None) -> None:
    profile = PROFILES[name]
    assert len(lines) <= profile.max_lines
    if max_lines is not None:
        assert len(lines) <= max(max_lines, 0)
    if profile.max_bytes is not None:
        assert len("\n".join(lines).encode("utf-8")) <= profile.max_bytes
    for line in lines:
        assert line and line == line.strip()
        assert profile.width(line) <= profile.line_width, (line, profile.width(line))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, name=PROFILE_NAMES, max_lines=st.none() | st.integers(-1, 12))
def test_fit_never_exceeds_profile_limits(text: str, name: str, max_lines: int | None) -> None:
    _check(fit_text(text, name, max_lines), name, max_lines)


@settings(max_examples=20, deadline=None)
@given(piece=PIECES, repeat=st.integers(100, 3000), name=PROFILE_NAMES)
def test_huge_text_still_fits(piece: str, repeat: int, name: str) -> None:
    _check(fit_text(piece * repeat, name), name, None)


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(st.sampled_from(["热搜", "话题", "hello", "world", " ", "，", "。", "🎉", "「", "」"]))
    .map("".join),
    name=PROFILE_NAMES,
)
def test_text_that_fits_is_kept_whole(text: str, name: str) -> None:
    lines = fit_text(text, name)
    shown = "".join(lines)
    if not shown.endswith("…"):
        # Only the spaces where lines break may disappear.
        assert re.sub(r"\s", "", shown) == re.sub(r"\s", "", text)
