from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, ParseError, UpstreamError
from agent.sources.baidu import Baidu
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with

REAL = SHARED_UPSTREAM / "baidu"
EXPECTED = {
    "board-realtime-2025-04-15.json": (50, "哈尔滨公安悬赏通缉3名美国特工", 7_944_591),
    "board-realtime-2025-04-16.json": (50, "特朗普听故宫三原色道理后懵了", 7_991_112),
}


def test_every_real_recording(settings) -> None:
    need_shared("upstream/baidu")
    source = Baidu()
    files = sorted(p for p in REAL.iterdir() if p.is_file())
    assert files
    for path in files:
        topics = source.parse(path.read_bytes())
        count, first, heat = EXPECTED[path.name]
        assert len(topics) == count, path.name
        assert topics[0].title == first
        assert topics[0].heat is not None and topics[0].heat > 0
        if heat is not None:
            assert topics[0].heat == heat
        assert [t.rank for t in topics] == list(range(1, count + 1))
        assert all(source.link_allowed(t.url) for t in topics)
        assert topics[0].summary
        # heat never rises down the list
        heats = [t.heat for t in topics]
        assert heats == sorted(heats, reverse=True)


def test_page_shape_nested_and_pinned(settings) -> None:
    topics = Baidu().parse((case_path("baidu", "board-page.html")).read_bytes())
    assert len(topics) == 6
    assert all("总书记" not in t.title for t in topics)  # isTop row dropped
    assert topics[0].title == "春晚机器人扭秧歌惊艳全场"


def test_failures(settings) -> None:
    source = Baidu()
    with pytest.raises(BlockedError):
        source.parse((case_path("baidu", "captcha.html")).read_bytes())
    with pytest.raises(UpstreamError, match="success=false"):
        source.parse((case_path("baidu", "upstream-error.json")).read_bytes())
    with pytest.raises(ParseError, match="data.cards.0"):
        source.parse((case_path("baidu", "changed-schema.json")).read_bytes())
    with pytest.raises(ParseError, match="s-data"):
        source.parse(b"<html><body>no data</body></html>")


async def test_fetch_prefers_api(settings) -> None:
    body = (case_path("baidu", "board-realtime.json")).read_bytes()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body)

    topics = await fetch_with(Baidu(), handler)
    assert [str(r.url) for r in seen] == ["https://top.baidu.com/api/board?platform=web&tab=realtime"]
    assert len(topics) == 20 and topics[0].heat == 7_904_216


async def test_fetch_falls_back_to_page(settings) -> None:
    page = (case_path("baidu", "board-page.html")).read_bytes()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == "/api/board":
            return httpx.Response(200, content=(case_path("baidu", "upstream-error.json")).read_bytes())
        return httpx.Response(200, content=page, headers={"Content-Type": "text/html"})

    topics = await fetch_with(Baidu(), handler)
    assert seen == ["/api/board", "/board"]
    assert len(topics) == 6
