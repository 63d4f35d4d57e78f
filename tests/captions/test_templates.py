from __future__ import annotations

import pytest

from agent.captions import compose_caption, format_heat, get_profile


def _zh(**overrides):
    args = dict(
        title="某明星官宣结婚 网友：终于等到了！",
        platforms=[("weibo", 3), ("douyin", 5)],
        heat=18_540_000,
        trend="rising",
        profile="hud-web",
        score=0.82,
        topic_id="weibo:abc",
    )
    return compose_caption(**(args | overrides))


def test_chinese_caption_reads_title_then_where_and_how_hot() -> None:
    caption = _zh()
    assert caption.text == "某明星官宣结婚 网友：终于等到了！\n微博#3 · 抖音#5 ↑ 1854万"
    assert caption.lines == ("某明星官宣结婚 网友：终于等到了！", "微博#3 · 抖音#5 ↑ 1854万")
    assert caption.source == "weibo+douyin"
    assert caption.ttl_ms == 10_000 and caption.profile == "hud-web"


def test_english_new_topic_on_hacker_news() -> None:
    caption = compose_caption(
        title="Show HN: A grapheme segmenter in 200 lines",
        platforms=[("hackernews", 2)],
        heat=412,
        trend="new",
        profile="hud-web",
        score=0.7,
        topic_id="hackernews:1",
    )
    assert caption.text == "Show HN: A grapheme segmenter in 200\nlines\n🆕 HN #2 · 412 pts"


@pytest.mark.parametrize(
    ("trend", "meta"),
    [("falling", "知乎#1 ↓ 3.1亿"), ("steady", "知乎#1 3.1亿"), ("new", "🆕 知乎#1 3.1亿")],
)
def test_trend_markers(trend: str, meta: str) -> None:
    caption = _zh(platforms=[("zhihu", 1)], heat=310_000_000, trend=trend)
    assert caption.lines[-1] == meta


def test_glasses_without_emoji_get_a_word_for_new() -> None:
    caption = _zh(platforms=[("bilibili", 7)], heat=None, trend="new", profile="even-g1")
    assert caption.lines[-1] == "新 B站#7"
    en = compose_caption(
        title="Rust 2.0 announced", platforms=[("reddit", None)], heat=12_300, trend="new",
        profile="frame", score=0.5, topic_id="reddit:x",
    )
    assert en.text == "Rust 2.0 announced\nNEW Reddit · 12k pts"


def test_long_title_is_shortened_and_the_meta_line_kept() -> None:
    caption = _zh(title="这是一个特别特别长的热搜标题，" * 10)
    assert len(caption.lines) == 3
    assert caption.lines[1].endswith("…")
    assert caption.lines[2] == "微博#3 · 抖音#5 ↑ 1854万"


def test_many_platforms_trimmed_to_fit_one_meta_line() -> None:
    platforms = [("weibo", 1), ("douyin", 2), ("baidu", 3), ("toutiao", 4), ("zhihu", 5), ("tieba", 6)]
    caption = _zh(platforms=platforms, heat=123_456_789, profile="rokid-glasses")
    assert caption.lines[-1] == "微博#1 · 抖音#2 · 百度#3 +3 ↑ 1.2亿"  # six platforms: three shown, three counted
    assert caption.source == "weibo+douyin+baidu+toutiao+zhihu+tieba"


def test_summary_goes_under_the_meta_line_when_room_is_left() -> None:
    caption = _zh(summary="两人恋爱八年，今天在微博同时发文。", profile="mentra-generic")
    assert caption.lines == (
        "某明星官宣结婚 网友：终于等到了！",
        "微博#3 · 抖音#5 ↑ 1854万",
        "两人恋爱八年，今天在微博同时发文。",
    )


def test_even_g1_caption_respects_byte_limit_and_lines() -> None:
    g1 = get_profile("even-g1")
    caption = _zh(title="超长标题" * 100, summary="摘要" * 100, profile=g1)
    assert len(caption.text.encode()) <= 390
    assert len(caption.lines) <= 5
    assert "微博#3 · 抖音#5 ↑ 1854万" in caption.lines


def test_platform_names_are_localised() -> None:
    names = ["weibo", "zhihu", "baidu", "douyin", "bilibili", "toutiao", "tieba", "v2ex",
             "hackernews", "reddit", "google_trends", "github_trending", "wikipedia"]
    labels = []
    for name in names:
        caption = _zh(platforms=[(name, None)], heat=None, trend="steady", profile="even-g2")
        labels.append(caption.lines[-1])
    assert labels == ["微博", "知乎", "百度", "抖音", "B站", "头条", "贴吧", "V2EX",
                      "HN", "Reddit", "Google", "GitHub", "Wiki"]


@pytest.mark.parametrize(
    ("heat", "lang", "text"),
    [
        (9_999, "zh", "9999"), (12_345, "zh", "1.2万"), (18_540_000, "zh", "1854万"),
        (310_000_000, "zh", "3.1亿"), (2_000_000_000, "zh", "20亿"),
        (412, "en", "412"), (1_000, "en", "1k"), (45_600, "en", "46k"), (1_500_000, "en", "1.5M"),
        (3_200_000_000, "en", "3.2B"),
    ],
)
def test_format_heat(heat: float, lang: str, text: str) -> None:
    assert format_heat(heat, lang) == text


def test_explicit_ttl_and_session() -> None:
    caption = _zh(ttl_ms=5_000, session_id="u1-app", now=100.0)
    assert (caption.ttl_ms, caption.session_id, caption.created_at) == (5_000, "u1-app", 100.0)
    assert not caption.expired(104.9) and caption.expired(105.0)
