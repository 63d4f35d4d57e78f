from __future__ import annotations

import time

import pytest

from agent.captions import fit_text, get_profile, graphemes
from agent.captions.fit import CLOSING, OPENING
from agent.errors import UnknownNameError

FAMILY = "👨\u200d👩\u200d👧\u200d👦"
RAINBOW_FLAG = "🏳️\u200d🌈"


def test_empty_and_blank_input_give_no_lines() -> None:
    assert fit_text("", "hud-web") == []
    assert fit_text(" \t\n\x00\u200b ", "hud-web") == []


def test_control_characters_stripped_and_whitespace_collapsed() -> None:
    assert fit_text("hot\x00 \t topic\n\n now\x07", "hud-web") == ["hot topic now"]


def test_latin_wraps_at_spaces_without_splitting_words() -> None:
    text = "The quick brown fox jumps over the lazy dog and keeps running far away"
    lines = fit_text(text, "hud-web")
    assert lines == ["The quick brown fox jumps over the lazy", "dog and keeps running far away"]


def test_over_long_word_is_hard_broken_only_when_alone() -> None:
    url = "https://example.com/" + "a" * 60
    lines = fit_text(f"see {url}", "hud-web")
    assert lines[0] == "see"
    assert "".join(lines[1:]) == url
    assert all(len(line) <= 40 for line in lines)


def test_overflow_ends_with_ellipsis_on_a_word_boundary() -> None:
    text = " ".join(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"] * 6)
    lines = fit_text(text, "hud-web")
    assert len(lines) == 3
    assert lines[-1].endswith("…")
    last_word = lines[-1].removesuffix("…").split()[-1]
    assert last_word in {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}


def test_chinese_overflow_cut_at_a_character_without_dangling_comma() -> None:
    text = "今天的天气真是太好了，我们一起去公园散步吧。" * 5
    lines = fit_text(text, "hud-web", max_lines=1)
    assert lines == ["今天的天气真是太好了，我们一起去公园散…"]


def test_no_line_starts_with_closing_punctuation() -> None:
    # 20 Han fill a 40-column hud line exactly; a naive wrap would start line 2 with "，".
    lines = fit_text("一二三四五六七八九十一二三四五六七八九十，再说一遍。", "hud-web")
    assert lines == ["一二三四五六七八九十一二三四五六七八九", "十，再说一遍。"]
    for mark in "。！？、；：）」』】》〉”’…":
        for line in fit_text("一" * 20 + mark + "好", "hud-web"):
            assert line[0] not in CLOSING


def test_no_line_ends_with_opening_punctuation() -> None:
    lines = fit_text("一" * 19 + "「热梗」来了", "hud-web")
    assert lines == ["一" * 19, "「热梗」来了"]
    for mark in "（「『【《〈“‘":
        for line in fit_text("一" * 19 + mark + "好好", "hud-web"):
            assert line[-1] not in OPENING


def test_number_and_its_unit_stay_together() -> None:
    lines = fit_text("一" * 18 + "1854万", "hud-web")
    assert lines == ["一" * 18, "1854万"]


def test_emoji_zwj_sequences_flags_and_skin_tones_never_split() -> None:
    pieces = [FAMILY, RAINBOW_FLAG, "🇨🇳", "👍🏽", "❤️", "1️⃣"]
    text = "".join(pieces) * 8
    for name in ("hud-web", "even-g1", "vuzix-z100"):
        lines = fit_text(text, name)
        assert "".join(lines).removesuffix("…")  # something is shown
        for line in lines:
            for cluster in graphemes(line.removesuffix("…")):
                assert cluster in pieces, (name, cluster)


def test_combining_marks_stay_with_their_letter() -> None:
    word = "cafe\u0301"
    lines = fit_text(" ".join([word] * 30), "hud-web")
    assert all(line.removesuffix("…").split()[-1] == word for line in lines)


@pytest.mark.parametrize(
    ("profile", "per_line"),
    [("even-g1", 32), ("vuzix-z100", 18), ("mentra-generic", 26), ("hud-web", 20), ("rokid-glasses", 18)],
)
def test_han_characters_per_line(profile: str, per_line: int) -> None:
    assert fit_text("热" * per_line, profile) == ["热" * per_line]
    assert fit_text("热" * (per_line + 1), profile) == ["热" * per_line, "热"]


def test_vuzix_holds_42_latin_characters() -> None:
    assert fit_text("a" * 42, "vuzix-z100") == ["a" * 42]
    assert fit_text("a" * 43, "vuzix-z100") == ["a" * 42, "a"]


def test_even_g1_measures_pixels_with_its_glyph_table() -> None:
    g1 = get_profile("even-g1")
    assert g1.width(" ") == 6
    assert g1.width("一") == 18
    assert g1.width("i") == 4 and g1.width("m") == 16 and g1.width("É") == g1.width("E")
    # 144 "i" at 4 px fill exactly 576 px.
    assert fit_text("i" * 144, g1) == ["i" * 144]


def test_even_g1_payload_never_exceeds_390_bytes() -> None:
    lines = fit_text("这是一个非常长的热搜话题标题" * 40, "even-g1")
    payload = "\n".join(lines).encode()
    assert len(payload) <= 390
    assert lines[-1].endswith("…")
    assert len(lines) <= 5


def test_max_lines_only_tightens_the_profile() -> None:
    text = "word " * 200
    assert len(fit_text(text, "hud-web", max_lines=2)) == 2
    assert len(fit_text(text, "hud-web", max_lines=50)) == 3
    assert fit_text(text, "hud-web", max_lines=0) == []


def test_max_bytes_override() -> None:
    lines = fit_text("热搜" * 50, "hud-web", max_bytes=30)
    assert len("\n".join(lines).encode()) <= 30
    assert lines[-1].endswith("…")


def test_unknown_profile_lists_valid_names() -> None:
    with pytest.raises(UnknownNameError) as info:
        fit_text("hi", "google-glass")
    assert "even-g1" in str(info.value) and "hud-web" in str(info.value)


def test_fit_is_fast() -> None:
    text = "微博热搜：某明星官宣结婚，网友纷纷送上祝福 🎉 and some English words too"
    fit_text(text, "even-g1")
    start = time.perf_counter()
    for _ in range(200):
        fit_text(text, "even-g1")
        fit_text(text, "hud-web")
    per_call_ms = (time.perf_counter() - start) / 400 * 1000
    assert per_call_ms < 1.0  # typically ~0.05 ms; generous for slow CI machines


def test_huge_input_is_cheap() -> None:
    start = time.perf_counter()
    lines = fit_text("热门话题 " * 200_000, "mentra-generic")
    assert time.perf_counter() - start < 0.5
    assert len(lines) == 5 and lines[-1].endswith("…")


def test_every_profile_declares_its_limits() -> None:
    from agent.captions import PROFILES

    assert set(PROFILES) == {
        "even-g1", "even-g2", "vuzix-z100", "mentra-generic", "rokid-glasses", "hud-web", "frame", "halo"
    }
    for profile in PROFILES.values():
        assert profile.max_lines >= 3 and profile.line_width > 0 and profile.ttl_ms == 10_000
    assert PROFILES["even-g1"].max_bytes == 390 and PROFILES["mentra-generic"].max_bytes == 450
    assert PROFILES["hud-web"].max_lines == 3


def test_glued_run_with_spaces_breaks_at_a_space_and_stays_in_width() -> None:
    # Every "." / "，" glues to what precedes it, so this is one long unbreakable run.
    for text in (". " * 200, "x ，" * 200, "a" * 35 + " ." + "热" * 10 + "。" * 30):
        for line in fit_text(text, "hud-web"):
            assert line == line.strip()
            assert get_profile("hud-web").width(line) <= 40
