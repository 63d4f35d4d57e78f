from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest

from agent.errors import FetchError, ParseError, UpstreamError
from agent.sources.wikipedia import Wikipedia, WikipediaOptions
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetch_with

RECORDINGS = SHARED_UPSTREAM / "wikipedia"
API = "https://wikimedia.org/api/rest_v1/metrics/pageviews/top"


def _fixed_clock() -> datetime:
    return datetime(2025, 2, 11, 8, 30, tzinfo=UTC)


def test_real_recordings_parse(settings) -> None:
    if not RECORDINGS.is_dir():
        pytest.skip("no real Wikimedia recording exists (see SOURCES.md); fixtures are hand-written")
    for path in sorted(RECORDINGS.glob("*.json")):
        topics = Wikipedia().parse(path.read_bytes())
        assert topics and topics[0].heat and topics[0].heat > 0
        assert all(Wikipedia().link_allowed(t.url) for t in topics)


def test_meta_pages_are_dropped_and_ranks_renumbered(settings) -> None:
    raw = json.loads(case_path("wikipedia", "top.json").read_text(encoding="utf-8"))["items"][0]["articles"]
    topics = Wikipedia().parse(case_path("wikipedia", "top.json").read_bytes())
    titles = [t.title for t in topics]
    assert "Main Page" not in titles and "-" not in titles
    meta = ("Special:", "Wikipedia:", "Portal:", "File:", "Talk:")
    assert not any(t.item_id.startswith(meta) for t in topics)
    assert len(topics) == len(raw) - 8
    assert [t.rank for t in topics] == list(range(1, len(topics) + 1))
    first = topics[0]
    assert first.title == "Super Bowl LIX" and first.item_id == "Super_Bowl_LIX"
    assert first.heat == 1_420_876 and first.extra["platform_rank"] == 3
    assert first.url == "https://en.wikipedia.org/wiki/Super_Bowl_LIX" and first.lang == "en"
    att = next(t for t in topics if t.item_id == "AT&T")
    assert att.url == "https://en.wikipedia.org/wiki/AT%26T"


def test_zh_project_uses_its_host_and_language(settings) -> None:
    topics = Wikipedia().parse(case_path("wikipedia", "top-zh.json").read_bytes())
    assert topics[0].title == "哪吒之魔童闹海"
    assert all(t.url.startswith("https://zh.wikipedia.org/wiki/") and t.lang == "zh" for t in topics)
    assert "DeepSeek" in [t.title for t in topics]


def test_error_shapes(settings) -> None:
    with pytest.raises(UpstreamError, match="not_found"):
        Wikipedia().parse(case_path("wikipedia", "not-found.json").read_bytes())
    with pytest.raises(ParseError, match="items.0.articles"):
        Wikipedia().parse(case_path("wikipedia", "changed-schema.json").read_bytes())


async def test_fetch_falls_back_to_the_day_before() -> None:
    seen: list[httpx.Request] = []
    top = case_path("wikipedia", "top.json").read_bytes()
    missing = case_path("wikipedia", "not-found.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/2025/02/10"):
            return httpx.Response(404, content=missing, headers={"Content-Type": "application/problem+json"})
        return httpx.Response(200, content=top, headers={"Content-Type": "application/json"})

    topics = await fetch_with(Wikipedia(WikipediaOptions(contact="mailto:ops@example.org"), clock=_fixed_clock),
                              handler)
    assert [str(r.url) for r in seen] == [f"{API}/en.wikipedia/all-access/2025/02/10",
                                          f"{API}/en.wikipedia/all-access/2025/02/09"]
    for request in seen:
        assert "mailto:ops@example.org" in request.headers["User-Agent"]
        assert "mailto:ops@example.org" in request.headers["Api-User-Agent"]
    assert topics[0].title == "Super Bowl LIX"


async def test_fetch_uses_the_configured_project_and_fails_loudly() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(404, content=case_path("wikipedia", "not-found.json").read_bytes())

    with pytest.raises(FetchError, match="HTTP 404") as info:
        await fetch_with(Wikipedia(WikipediaOptions(project="zh.wikipedia"), clock=_fixed_clock), handler)
    assert seen == [f"{API}/zh.wikipedia/all-access/2025/02/10", f"{API}/zh.wikipedia/all-access/2025/02/09"]
    assert "fallbacks failed too" in str(info.value)
    group = info.value.__cause__  # each endpoint's own failure, the preferred endpoint's first
    assert isinstance(group, ExceptionGroup) and [e.url for e in group.exceptions] == seen
    assert info.value.status == 404 and not info.value.transient
