from __future__ import annotations

import httpx
import pytest

from agent.errors import ParseError, UpstreamError
from agent.sources.toutiao import Toutiao
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with

REAL = SHARED_UPSTREAM / "toutiao"


def test_every_real_recording(settings) -> None:
    """The only real recordings are app-feed error envelopes (errno 20100, empty data[])."""
    need_shared("upstream/toutiao")
    source = Toutiao()
    files = sorted(p for p in REAL.iterdir() if p.is_file())
    assert files
    for path in files:
        assert "errno20100" in path.name
        with pytest.raises(UpstreamError, match="errno=20100"):
            source.parse(path.read_bytes())


def test_both_shapes_and_failures(settings) -> None:
    source = Toutiao()
    web = source.parse((case_path("toutiao", "hot-board.json")).read_bytes())
    app = source.parse((case_path("toutiao", "hotboard-app.json")).read_bytes())
    assert len(web) == 18 and len(app) == 6  # the app header cell is skipped
    assert web[0].title == app[0].title == "春晚机器人扭秧歌惊艳全场 网友：科技感拉满"
    assert web[0].heat == app[0].heat == 38_672_012
    assert all(source.link_allowed(t.url) for t in web + app)
    assert "新春走基层" not in {t.title for t in web}  # fixed_top_data is pinned
    with pytest.raises(UpstreamError, match="status='error'"):
        source.parse((case_path("toutiao", "web-error.json")).read_bytes())
    with pytest.raises(ParseError, match="'data' list"):
        source.parse((case_path("toutiao", "changed-schema.json")).read_bytes())
    with pytest.raises(ParseError, match="not valid JSON"):
        source.parse(b'{"errno": 0, "message": "success", "data": [{"content": "{broken"}]}')


async def test_fetch_prefers_web(settings) -> None:
    body = (case_path("toutiao", "hot-board.json")).read_bytes()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body)

    topics = await fetch_with(Toutiao(), handler)
    assert [str(r.url) for r in seen] == ["https://www.toutiao.com/hot-event/hot-board/?origin=toutiao_pc"]
    assert seen[0].headers["Referer"] == "https://www.toutiao.com/"
    assert len(topics) == 18


async def test_fetch_falls_back_to_app_feed(settings) -> None:
    app = (case_path("toutiao", "hotboard-app.json")).read_bytes()
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.host)
        if request.url.host == "www.toutiao.com":
            return httpx.Response(503)
        assert request.url.params["category"] == "hotboard_online"
        return httpx.Response(200, content=app)

    topics = await fetch_with(Toutiao(), handler)
    assert seen == ["www.toutiao.com", "i-lq.snssdk.com"]
    assert len(topics) == 6


async def test_fetch_both_failing_keeps_the_preferred_error(settings) -> None:
    errno = (case_path("toutiao", "app-errno.json")).read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "www.toutiao.com":
            return httpx.Response(200, content=(case_path("toutiao", "web-error.json")).read_bytes())
        return httpx.Response(200, content=errno)

    with pytest.raises(UpstreamError, match="errno=20100"):
        await fetch_with(Toutiao(), handler)
