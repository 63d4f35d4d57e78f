from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, ParseError
from agent.sources.google_trends import GoogleTrends, GoogleTrendsOptions
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with

RECORDINGS = SHARED_UPSTREAM / "google_trends"


def test_real_recordings_parse(settings) -> None:
    need_shared("upstream/google_trends")
    files = sorted(RECORDINGS.glob("*.xml"))
    assert files
    source = GoogleTrends()
    for path in files:
        topics = source.parse(path.read_bytes())
        assert len(topics) == 10, path.name
        first = topics[0]
        assert first.title == "西堀"
        assert first.heat == 200 and first.heat_text == "200+"
        assert [t.rank for t in topics] == list(range(1, 11))
        assert all(t.heat and t.heat > 0 for t in topics)
        # kanji-only and Latin ("snowman") titles of the JP list are Japanese topics
        assert {t.lang for t in topics} == {"ja"}
        for t in topics:
            assert t.url and t.url.startswith("https://")
            assert t.extra["geo"] == "JP"
            # the shown link stays on Google; the news article is kept aside in extra
            assert source.link_allowed(t.url) and t.url.startswith("https://trends.google.com/trends/explore?q=")
            assert t.url.endswith("&geo=JP")
        assert first.extra["news_source"] == "Yahoo!ニュース"


def test_billion_laughs_is_refused_quickly(settings) -> None:
    with pytest.raises(ParseError, match="DOCTYPE"):
        GoogleTrends().parse(case_path("google_trends", "billion-laughs.xml").read_bytes())


async def test_fetch_asks_for_the_configured_country() -> None:
    seen: list[httpx.Request] = []
    body = case_path("google_trends", "trending-rss.xml").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"Content-Type": "application/rss+xml"})

    topics = await fetch_with(GoogleTrends(GoogleTrendsOptions(geo="JP")), handler)
    assert [str(r.url) for r in seen] == ["https://trends.google.com/trending/rss?geo=JP"]
    assert "rss" in seen[0].headers["Accept"]
    assert topics[0].title == "super bowl halftime show" and topics[0].heat == 2_000_000
    assert topics[7].title == "at&t outage"


async def test_fetch_reports_the_captcha_page_as_blocked(settings) -> None:
    page = case_path("google_trends", "sorry-page.html").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=page, headers={"Content-Type": "text/html"})

    with pytest.raises(BlockedError):
        await fetch_with(GoogleTrends(), handler)
