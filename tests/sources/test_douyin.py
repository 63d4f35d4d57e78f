from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, ParseError, UpstreamError
from agent.sources.douyin import APP_URL, COOKIE_URL, WEB_URL, Douyin, DouyinOptions
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetcher

RECORDED = SHARED_UPSTREAM / "douyin"
HOT = (case_path("douyin", "hot-search.json")).read_bytes()
APP = (case_path("douyin", "app-trending.json")).read_bytes()



def test_every_real_recording_parses(settings) -> None:
    need_shared("upstream/douyin")
    files = sorted(RECORDED.glob("*.json"))
    assert files
    source = Douyin()
    for path in files:
        topics = source.parse(path.read_bytes())
        if path.name == "hot-search-2025-04-15.json":
            # 49 ranked words + 5 rising topics (app API trending_list), no duplicates
            assert len(topics) == 54
            assert topics[0].title == "日本首相石破茂警告美国"
            assert topics[0].heat == 12099138 and topics[0].rank == 1
            assert [t.rank for t in topics[:49]] == list(range(1, 50))
            assert all(t.rank is None and t.extra["rising"] for t in topics[49:])
        assert topics[0].heat and topics[0].heat > 0
        assert all(source.link_allowed(t.url) for t in topics)
        assert len({t.item_id for t in topics}) == len(topics)


def test_parse_rejects_blocks_and_error_envelopes(settings) -> None:
    source = Douyin()
    with pytest.raises(UpstreamError, match="status_code=8"):
        source.parse(b'{"status_code": 8, "status_msg": "blocked"}')
    with pytest.raises(UpstreamError, match="empty data.word_list"):
        source.parse(b'{"status_code": 0, "data": {"word_list": []}}')
    with pytest.raises(BlockedError):
        source.parse("<html><title>验证码中间页</title></html>".encode())
    with pytest.raises(ParseError, match="empty body"):
        source.parse(b"")


async def test_fetch_takes_the_visitor_cookie_then_asks_the_web_list(settings) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if str(request.url) == COOKIE_URL:
            return httpx.Response(200, headers=[("Set-Cookie", "ttwid=abc; Path=/; Domain=.douyin.com"),
                                                ("Set-Cookie", "passport_csrf_token=xyz; Path=/; Secure")],
                                  text="<html></html>")
        assert str(request.url) == WEB_URL
        return httpx.Response(200, content=HOT)

    source = Douyin()
    topics = await source.fetch(fetcher(handler))
    assert len(topics) == 25 and topics[0].title == "春晚机器人扭秧歌"
    assert seen[1].headers["Cookie"] == "ttwid=abc; passport_csrf_token=xyz"
    assert seen[1].headers["Referer"].startswith("https://www.douyin.com/")
    await source.fetch(fetcher(handler))  # the visitor cookie is cached
    assert [str(r.url) for r in seen].count(COOKIE_URL) == 1


async def test_configured_cookie_skips_the_login_request() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=HOT)

    await Douyin(DouyinOptions(cookie="sessionid=mine")).fetch(fetcher(handler))
    assert [str(r.url) for r in seen] == [WEB_URL]
    assert seen[0].headers["Cookie"] == "sessionid=mine"


async def test_empty_web_answer_falls_back_to_the_app_api(settings) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if str(request.url) == COOKIE_URL:
            return httpx.Response(200)
        if str(request.url) == WEB_URL:
            return httpx.Response(200, content=b"")  # what the web list answers without a cookie
        return httpx.Response(200, content=APP)

    topics = await Douyin().fetch(fetcher(handler))
    assert seen == [COOKIE_URL, WEB_URL, APP_URL]
    assert topics[0].title == "春晚机器人扭秧歌"
    assert any(t.extra["rising"] for t in topics)


async def test_both_endpoints_failing_reports_both(settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == WEB_URL:
            return httpx.Response(200, json={"status_code": 2154, "status_msg": "请求太过频繁"})
        return httpx.Response(503) if str(request.url) == APP_URL else httpx.Response(200)

    with pytest.raises(UpstreamError, match="fallbacks failed too: fetch: HTTP 503"):
        await Douyin().fetch(fetcher(handler))
