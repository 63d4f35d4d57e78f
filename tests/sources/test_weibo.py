from __future__ import annotations

import json

import httpx
import pytest

from agent.errors import BlockedError, ParseError
from agent.sources.weibo import Weibo, WeiboOptions
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with

REAL = SHARED_UPSTREAM / "weibo"
# file -> (ranked items, first title, first heat); the mobile answers also hold the side boards below
EXPECTED = {
    "m-getindex-realtimehot-2025-03-31.json": (50, "山姆客服称水果中吃出虫是正常情况", 1108176),
    "m-getindex-realtimehot-2025-04-01.json": (50, "雷军回应", 20628640),
    "s-summary-realtimehot-2021-09-21.html": (50, "傅园慧夺100米仰泳铜牌", 2441205),
    "s-summary-realtimehot-2021-09-22.html": (50, "美国新冠零号病人可能2019年4月出现", 1711551),
}


def test_every_real_recording(settings) -> None:
    need_shared("upstream/weibo")
    source = Weibo()
    files = sorted(p for p in REAL.iterdir() if p.is_file())
    assert files
    for path in files:
        if "visitor-wall" in path.name:
            with pytest.raises(BlockedError, match="Sina Visitor System"):
                source.parse(path.read_bytes())
            continue
        topics = source.parse(path.read_bytes())
        count, first, heat = EXPECTED[path.name]
        ranked = topics[:count]
        assert len(topics) == count + SIDE_BOARDS.get(path.name, 0), path.name
        assert ranked[0].title == first
        assert ranked[0].heat == heat and ranked[0].heat > 0
        assert [t.rank for t in ranked] == list(range(1, count + 1))
        assert all(t.rank is None for t in topics[count:])
        assert all(source.link_allowed(t.url) for t in topics)
        assert all(t.url.startswith("https://s.weibo.com/weibo?q=") for t in topics)


# rows of the mobile answer's rising (实时上升热点) and entertainment (文娱热搜) boards not on the ranked board
SIDE_BOARDS = {"m-getindex-realtimehot-2025-03-31.json": 27, "m-getindex-realtimehot-2025-04-01.json": 28}


def test_real_mobile_keeps_the_rising_and_entertainment_boards(settings) -> None:
    """The mobile answer's cards after the ranked board are topics too: the rising board's twenty and the
    entertainment board's rows the ranked board lacks, kept after it, unranked and without heat, their board
    named."""
    path = REAL / "m-getindex-realtimehot-2025-03-31.json"
    need_shared(f"upstream/weibo/{path.name}")
    topics = Weibo().parse(path.read_bytes())
    by_title = {t.title: t for t in topics}
    rising = by_title["网友调侃福宝胖的没脖子了"]  # the rising board's 18th row
    assert rising.rank is None and rising.extra == {"board": "实时上升热点"}
    assert all(t.heat is None for t in topics if t.rank is None)  # a side board's figure is no ranked heat
    assert by_title["难哄3月全网播放冠军"].extra == {"board": "文娱热搜"}  # the entertainment board's own row
    assert by_title["金秀贤和未成年金赛纶约会视频"].rank is not None  # on both boards: kept once, ranked
    assert len(by_title) == len(topics)
    assert not any(t.title.startswith("查看更多") for t in topics)  # the boards' "see more" links
    assert all(t.url.startswith("https://s.weibo.com/weibo?q=") for t in topics)


def test_odd_side_boards_are_skipped_not_fatal(settings) -> None:
    """A side card of another shape (no group, a row whose log is text, a link row, an ad) costs nothing."""
    ranked = {"card_type": 4, "desc": "春晚", "desc_extr": "晚会 12311533", "itemid": "realpos:1"}
    cards = [{"card_group": [ranked]}, {"card_group": "none"}, "text",
             {"title": "实时上升热点", "card_group": [
                 {"card_type": 4, "desc": "小狗春晚", "actionlog": "ext:pos:1_1"},
                 {"card_type": 4, "desc": "广告", "itemid": "is_ad_pos:1"},
                 {"card_type": 6, "desc": "查看更多实时上升热点"}, {"card_type": 4, "desc": "春晚"}]}]
    body = json.dumps({"ok": 1, "data": {"cards": cards}}).encode()
    topics = Weibo().parse(body)
    assert [(t.title, t.rank, t.extra) for t in topics] == [
        ("春晚", 1, {"category": "晚会"}), ("小狗春晚", None, {"board": "实时上升热点"})]


def test_real_mobile_drops_pinned_and_ads(settings) -> None:
    path = REAL / "m-getindex-realtimehot-2025-03-31.json"
    need_shared(f"upstream/weibo/{path.name}")
    titles = {t.title for t in Weibo().parse(path.read_bytes())}
    assert "2025是推进巡视全覆盖的关键一年" not in titles  # pinned first row
    assert "肖战猫人携手第二年" not in titles  # is_ad_pos slot
    assert "淘宝推出首个AI机器人带货主播" in titles  # ranked row (realpos 15) stays


def test_same_story_same_id_across_shapes(settings) -> None:
    source = Weibo()
    web = source.parse((case_path("weibo", "hotsearch.json")).read_bytes())
    mobile = source.parse((case_path("weibo", "getindex-mobile.json")).read_bytes())
    html = source.parse((case_path("weibo", "summary-desktop.html")).read_bytes())
    assert web[0].item_id == mobile[0].item_id == html[0].item_id
    dropped = {"新春焕新季手机直降", "年货节满减最后一天", "新春走基层"}  # ads and the pinned row
    assert not dropped & {t.title for t in web + mobile + html}


def test_unknown_shape_names_what_is_missing(settings) -> None:
    with pytest.raises(ParseError, match="data.realtime"):
        Weibo().parse(b'{"ok": 1, "data": {"list": []}}')


async def test_fetch_sends_referer_and_cookie(settings) -> None:
    body = (case_path("weibo", "hotsearch.json")).read_bytes()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body)

    topics = await fetch_with(Weibo(WeiboOptions(cookie="SUB=abc")), handler)
    assert len(seen) == 1
    assert str(seen[0].url) == "https://weibo.com/ajax/side/hotSearch"
    assert seen[0].headers["Referer"] == "https://weibo.com/"
    assert seen[0].headers["Cookie"] == "SUB=abc"
    assert topics[0].title == "春晚机器人扭秧歌"


async def test_fetch_falls_back_to_mobile_then_html(settings) -> None:
    mobile = (case_path("weibo", "getindex-mobile.json")).read_bytes()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.host)
        if request.url.host == "weibo.com":
            return httpx.Response(403, text="Forbidden")
        if request.url.host == "m.weibo.cn":
            assert "iPhone" in request.headers["User-Agent"]
            return httpx.Response(200, content=mobile)
        raise AssertionError("html endpoint must not be reached")

    topics = await fetch_with(Weibo(), handler)
    assert seen == ["weibo.com", "m.weibo.cn"]
    assert [t.rank for t in topics] == [1, 2, 3, 4, 5, 6]


async def test_fetch_all_blocked_reports_blocked(settings) -> None:
    wall = (case_path("weibo", "visitor-wall.html")).read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=wall, headers={"Content-Type": "text/html"})

    with pytest.raises(BlockedError):
        await fetch_with(Weibo(), handler)
