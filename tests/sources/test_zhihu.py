from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, ParseError, UpstreamError
from agent.sources.zhihu import Zhihu
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with

REAL = SHARED_UPSTREAM / "zhihu"
# file -> (items, first title, first heat); topsearch pages print no heat at all
EXPECTED = {
    "hot-question-2025-04-15.json": (30, "《流浪地球 3》开机，沈腾参演，对此你有哪些期待？", 18_100_000),
    "hot-question-2025-04-16.json": (30, "外交部回应美对华加征 245% 关税，称「中方不愿打，但也绝不怕打」，"
                                         "美国的做法还有意义吗？", 48_340_000),
    "topsearch-2025-04-15.html": (23, "勇士vs快船", None),
    "topsearch-2025-04-16.html": (24, "你的学校发生过最扯的事是什么", None),
}


def test_every_real_recording(settings) -> None:
    need_shared("upstream/zhihu")
    source = Zhihu()
    files = sorted(p for p in REAL.iterdir() if p.is_file())
    assert files
    for path in files:
        topics = source.parse(path.read_bytes())
        count, first, heat = EXPECTED[path.name]
        assert len(topics) == count, path.name
        assert topics[0].title == first
        assert [t.rank for t in topics] == list(range(1, count + 1))
        assert all(source.link_allowed(t.url) for t in topics)
        if heat is None:
            assert all(t.heat is None for t in topics)
        else:
            assert topics[0].heat == heat and topics[0].heat > 0
            assert topics[0].heat_text.endswith("万热度")
            assert topics[0].item_id.isdigit() and topics[0].url.endswith(topics[0].item_id)
            assert topics[0].summary


def test_real_topsearch_page_is_not_mistaken_for_a_captcha(settings) -> None:
    path = REAL / "topsearch-2025-04-15.html"
    need_shared(f"upstream/zhihu/{path.name}")
    assert "captcha" in path.read_text(encoding="utf-8")  # its config names captcha.zhihu.com
    assert Zhihu().parse(path.read_bytes())


def test_failures(settings) -> None:
    source = Zhihu()
    with pytest.raises(BlockedError, match="40352"):
        source.parse((case_path("zhihu", "unhuman.json")).read_bytes())
    with pytest.raises(UpstreamError, match="10003"):
        source.parse((case_path("zhihu", "error-envelope.json")).read_bytes())
    with pytest.raises(ParseError, match="js-initialData"):
        source.parse(b"<html><body>nothing here</body></html>")


async def test_fetch_prefers_hot_lists(settings) -> None:
    body = (case_path("zhihu", "hot-lists.json")).read_bytes()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body)

    topics = await fetch_with(Zhihu(), handler)
    assert [str(r.url) for r in seen] == ["https://www.zhihu.com/api/v3/feed/topstory/hot-lists/total?limit=50"]
    assert seen[0].headers["Referer"] == "https://www.zhihu.com/hot"
    assert len(topics) == 20 and topics[0].heat == 29_870_000


async def test_fetch_falls_back_to_topsearch(settings) -> None:
    page = (case_path("zhihu", "topsearch.html")).read_bytes()
    unhuman = (case_path("zhihu", "unhuman.json")).read_bytes()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path.startswith("/api/"):
            return httpx.Response(403, content=unhuman)
        return httpx.Response(200, content=page, headers={"Content-Type": "text/html"})

    topics = await fetch_with(Zhihu(), handler)
    assert seen == ["/api/v3/feed/topstory/hot-lists/total", "/topsearch"]
    assert topics[0].title == "春晚机器人扭秧歌"
    assert topics[0].url.startswith("https://www.zhihu.com/search?")
