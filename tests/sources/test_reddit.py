from __future__ import annotations

import base64

import httpx
import pytest
from pydantic import SecretStr

from agent.errors import ParseError, SourceDisabled, UpstreamError
from agent.sources.reddit import LISTING_URL, TOKEN_URL, Reddit, RedditOptions
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetcher

RECORDED = SHARED_UPSTREAM / "reddit"
LISTING = case_path("reddit", "popular-hot.json").read_bytes()



@pytest.fixture
def creds() -> RedditOptions:
    return RedditOptions(client_id="app-id", client_secret=SecretStr("app-secret"))


def test_every_real_recording_parses(settings) -> None:
    need_shared("upstream/reddit")
    expected = {
        # 100 posts, 2 over_18 dropped
        "front-hot-2016-03-01.json": (98, "My game cam finally caught something cool.", 6710),
        # 102 posts, 2 stickied and 3 over_18 dropped
        "r-askreddit-hot-2016-03-01.json": (97, "Reddit, what went 0-100 real fucking quick?", 2250),
    }
    files = sorted(RECORDED.glob("*.json"))
    assert files
    source = Reddit()
    for path in files:
        topics = source.parse(path.read_bytes())
        if path.name in expected:
            count, title, heat = expected[path.name]
            assert (len(topics), topics[0].title, topics[0].heat) == (count, title, heat)
        assert topics[0].heat and topics[0].heat > 0
        assert [t.rank for t in topics] == list(range(1, len(topics) + 1))
        assert all(source.link_allowed(t.url) for t in topics)
        assert all(t.url.startswith("https://www.reddit.com/r/") for t in topics)


def test_parse_drops_stickied_and_nsfw_and_reports_errors(settings) -> None:
    source = Reddit()
    topics = source.parse(LISTING)
    assert len(topics) == 23
    assert topics[0].title.startswith("DeepSeek open-sources")
    assert not any("nsfw" in t.title or "Community Guidelines" in t.title for t in topics)
    with pytest.raises(UpstreamError, match="error=401: Unauthorized"):
        source.parse(b'{"message": "Unauthorized", "error": 401}')
    with pytest.raises(ParseError, match="access-token"):
        source.parse(case_path("reddit", "token.json").read_bytes())
    with pytest.raises(ParseError, match="data.children"):
        source.parse(b'{"kind": "Listing", "data": {}}')


def test_disabled_without_credentials_unless_replaying() -> None:
    reason = Reddit().disabled_reason()
    assert reason and "TRENDLENS_REDDIT_CLIENT_ID" in reason and "TRENDLENS_REDDIT_CLIENT_SECRET" in reason
    assert Reddit().disabled_reason(replaying=True) is None


async def test_fetch_without_credentials_is_disabled(settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:  # pragma: no cover - must not be called
        raise AssertionError("no request without credentials")

    with pytest.raises(SourceDisabled):
        await Reddit().fetch(fetcher(handler))


async def test_fetch_gets_a_token_then_the_listing_and_caches_the_token(creds) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if str(request.url) == TOKEN_URL:
            return httpx.Response(200, json={"access_token": "tok-1", "token_type": "bearer",
                                             "expires_in": 86400})
        return httpx.Response(200, content=LISTING)

    source = Reddit(creds)
    http = fetcher(handler)
    topics = await source.fetch(http)
    assert len(topics) == 23
    token_req, listing_req = seen
    assert token_req.method == "POST" and str(token_req.url) == TOKEN_URL
    assert token_req.content == b"grant_type=client_credentials"
    assert token_req.headers["Authorization"] == "Basic " + base64.b64encode(b"app-id:app-secret").decode()
    assert token_req.headers["User-Agent"].startswith("python:trendlens:")
    assert listing_req.method == "GET" and str(listing_req.url) == LISTING_URL
    assert listing_req.headers["Authorization"] == "bearer tok-1"
    assert listing_req.headers["User-Agent"].startswith("python:trendlens:")
    await source.fetch(http)
    assert [r.method for r in seen] == ["POST", "GET", "GET"]  # token reused until it expires


async def test_listing_error_envelope_is_upstream_and_drops_the_token(creds) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == TOKEN_URL:
            return httpx.Response(200, json={"access_token": "tok", "expires_in": 3600})
        return httpx.Response(200, json={"message": "Unauthorized", "error": 401})

    source = Reddit(creds)
    with pytest.raises(UpstreamError, match="401"):
        await source.fetch(fetcher(handler))
    assert source._token is None


async def test_offline_replay_works_without_credentials() -> None:
    source = Reddit()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=case_path("reddit", source.replay_case(request)).read_bytes())

    topics = await source.fetch(fetcher(handler, replaying=True))
    assert len(topics) == 23
