"""The platform table: one record for each registered source, read by every place that names one."""

from __future__ import annotations

import pytest

from agent.captions import meta_line
from agent.platforms import PLATFORMS, find_platform, platform_name
from agent.sources import AGGREGATOR_NAMES, REGISTRY


def test_every_registered_platform_has_exactly_one_record() -> None:
    # `feed` is the generic parser: each configured feed is named by its operator, not by this table;
    # an aggregator is no platform: its routes serve the platforms (`register_platform` adds new ones).
    assert set(PLATFORMS) == set(REGISTRY) - {"feed", *AGGREGATOR_NAMES}


def test_a_run_time_platform_is_named_by_its_route_and_never_replaces_a_built_in_one() -> None:
    from agent.platforms import caption_label, forget_platform, register_platform

    try:
        assert register_platform("huxiu", "<b>虎嗅</b>网 热文榜 · 24 小时").label == "虎嗅 网 热文榜 · 2"  # 12 at most
        assert find_platform("huxiu上什么最火") is not None
        assert register_platform("weibo", "something else").label == "微博"
    finally:
        forget_platform("huxiu")
        forget_platform("weibo")
    assert caption_label("huxiu") == "huxiu" and caption_label("weibo") == "微博"


def test_run_time_platforms_have_their_own_table_and_the_built_in_one_is_never_written() -> None:
    from agent.platforms import forget_platform, known_platforms, register_platform, run_time_platforms

    with pytest.raises(TypeError):
        PLATFORMS["huxiu"] = PLATFORMS["weibo"]  # type: ignore[index]
    try:
        register_platform("huxiu", "虎嗅")
        register_platform("huxiu", "虎嗅网", domains=("huxiu.com",))  # the route's first answer: one record, renamed
        assert "huxiu" not in PLATFORMS and run_time_platforms() == ("huxiu",)
        assert known_platforms() == (*PLATFORMS, "huxiu") and platform_name("huxiu", "zh") == "虎嗅网"
    finally:
        forget_platform("huxiu")
    assert run_time_platforms() == () and "weibo" in PLATFORMS


@pytest.mark.parametrize("source", sorted(PLATFORMS))
def test_a_question_naming_a_platform_finds_it(source: str) -> None:
    p = PLATFORMS[source]
    for name in (p.zh, p.en, *p.aliases):
        found = find_platform(f"{name}上什么最火")
        assert found is not None and found[0].source == source, name


@pytest.mark.parametrize("source", sorted(PLATFORMS))
def test_no_raw_source_id_reaches_a_reader(source: str) -> None:
    p = PLATFORMS[source]
    assert meta_line([(source, 1)], None, "steady", "zh").startswith(p.label + "#1")
    assert platform_name(source, "zh") == p.zh and platform_name(source, "en") == p.en
    assert "_" not in p.label + p.zh + p.en


def test_a_feed_keeps_its_own_name() -> None:
    assert platform_name("lobsters", "en") == "lobsters"
    assert meta_line([("lobsters", 2)], 40, "steady", "en") == "lobsters #2 · 40"


def test_no_module_keeps_a_table_of_platforms_of_its_own() -> None:
    # one record per platform: a second table keyed by platform ids (an aggregator's names for them)
    # drifts from it, so every such fact is a field of `Platform`
    import ast

    from agent.platforms import PLATFORMS
    from harness.paths import ROOT

    ids = set(PLATFORMS)
    tables = []
    for path in (ROOT / "agent").rglob("*.py"):
        if path.name == "platforms.py" or path.parent.name == "sources" and path.stem in ids:
            continue  # a platform's own source module names itself
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if isinstance(value, ast.Dict):
                keys = {k.value for k in value.keys if isinstance(k, ast.Constant)}
                vals = {v.value for v in value.values if isinstance(v, ast.Constant)}
                if len((keys | vals) & ids) >= 3:
                    tables.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert tables == []
