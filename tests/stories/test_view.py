"""agent/stories/view.py: one order, one place per platform and one trend for every surface."""

from __future__ import annotations

from agent.models import Topic
from agent.stories.view import by_heat, per_platform, story_trend


def _t(source: str, item: str, rank: int) -> Topic:
    return Topic(source=source, item_id=item, title=f"{source} {item}", rank=rank, lang="zh")


def test_hottest_first_then_the_better_place() -> None:
    a, b, c = _t("baidu", "a", 9), _t("douyin", "b", 2), _t("weibo", "c", 5)
    fair = {a.id: 1.0, b.id: 1.0, c.id: 0.4}
    assert [m.source for m in by_heat([a, c, b], fair)] == ["douyin", "baidu", "weibo"]


def test_each_platform_once_with_its_count() -> None:
    ordered = [_t("weibo", "1", 1), _t("zhihu", "2", 3), _t("weibo", "3", 7)]
    assert [(m.item_id, n) for m, n in per_platform(ordered)] == [("1", 2), ("2", 1)]


def test_the_story_trend() -> None:
    assert story_trend({"new"}, "new") == "new"
    assert story_trend({"new", "steady"}, "steady") == "steady"
    assert story_trend({"falling", "rising"}, "falling") == "rising"
    assert story_trend(set(), "steady") == "steady"
