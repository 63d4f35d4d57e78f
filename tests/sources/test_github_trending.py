from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, FetchError, ParseError
from agent.sources.github_trending import GithubTrending
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with, fetcher

RECORDINGS = SHARED_UPSTREAM / "github_trending"


def test_real_recordings_parse(settings) -> None:
    need_shared("upstream/github_trending")
    files = sorted(RECORDINGS.glob("*.html"))
    assert files
    source = GithubTrending()
    for path in files:
        topics = source.parse(path.read_bytes())
        assert len(topics) == 25, path.name
        first = topics[0]
        assert first.title == "microsoft/Terminal" and first.item_id == "microsoft/Terminal"
        assert first.heat == 1573 and first.heat_text == "1,573 stars today"
        assert first.summary and first.summary.startswith("The new Windows Terminal")
        assert first.extra["language"] == "C++" and first.extra["markup"] == "repo-list"
        assert all(t.heat and t.heat > 0 for t in topics)
        assert all(source.link_allowed(t.url) for t in topics)
        assert [t.rank for t in topics] == list(range(1, 26))


def test_todays_and_2019_markup_agree(settings) -> None:
    source = GithubTrending()
    today = {t.title: t for t in source.parse(case_path("github_trending", "trending.html").read_bytes())}
    old = source.parse(case_path("github_trending", "trending-2019-markup.html").read_bytes())
    for t in old:
        assert t.heat == today[t.title].heat
        assert t.url == today[t.title].url


def test_changed_markup_names_what_is_missing(settings) -> None:
    with pytest.raises(ParseError, match="article.Box-row"):
        GithubTrending().parse(case_path("github_trending", "changed-markup.html").read_bytes())


async def test_fetch_requests_daily_trending(settings) -> None:
    seen: list[httpx.Request] = []
    body = case_path("github_trending", "trending.html").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html; charset=utf-8"})

    topics = await fetch_with(GithubTrending(), handler)
    assert [str(r.url) for r in seen] == ["https://github.com/trending?since=daily"]
    assert seen[0].headers["Accept"] == "text/html"
    assert topics[0].title == "deepseek-ai/DeepSeek-R2" and topics[0].heat == 9874
    assert topics[0].url == "https://github.com/deepseek-ai/DeepSeek-R2"


async def test_fetch_abuse_page_and_http_errors(settings) -> None:
    abuse = case_path("github_trending", "abuse-rate-limit.html").read_bytes()
    statuses = iter([200, 429])

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(statuses), content=abuse)

    http = fetcher(handler)
    async with http.client:
        with pytest.raises(BlockedError, match="abuse detection"):
            await GithubTrending().fetch(http)
        with pytest.raises(FetchError, match="HTTP 429"):
            await GithubTrending().fetch(http)
