"""The fetch path under every failure mode a platform has shown us."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from agent.collect.fetching import CircuitBreaker, FetchPolicy, HttpFetcher, fetch_all, fetch_one
from agent.errors import FetchError, ParseError, TooLargeError
from agent.sources.v2ex import V2ex
from tests.conftest import case_path

GOOD = (case_path("v2ex", "hot.json")).read_bytes()


class OtherV2ex(V2ex):
    """A second source on another host, to show failures stay contained."""

    name = "other"

    def endpoints(self):
        from agent.sources.base import Endpoint

        return [Endpoint("https://other.example/hot.json")]


def fetcher(handler, **policy) -> HttpFetcher:
    sleeps: list[float] = []

    async def fake_sleep(s: float) -> None:
        sleeps.append(s)

    f = HttpFetcher(httpx.AsyncClient(transport=httpx.MockTransport(handler)),
                    FetchPolicy(**{"retries": 2, "backoff_s": 0.01, "timeout_s": 1, "deadline_s": 3, **policy}),
                    sleep=fake_sleep)
    f.sleeps = sleeps  # type: ignore[attr-defined]
    return f


def body_for(v2ex_handler):
    """Route v2ex to the handler under test, the other source always succeeds."""

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "other.example":
            return httpx.Response(200, content=GOOD)
        result = v2ex_handler(request)
        if asyncio.iscoroutine(result):
            result = await result
        return result

    return handler


async def outcomes_for(settings, v2ex_handler, **policy):
    http = fetcher(body_for(v2ex_handler), **policy)
    results = await fetch_all([V2ex.from_settings(settings), OtherV2ex.from_settings(settings)], http)
    by_name = {o.source: o for o in results}
    assert by_name["other"].ok and len(by_name["other"].topics) == 3, "a failing source hurt another one"
    return by_name["v2ex"], http


async def test_success(settings):
    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(200, content=GOOD))
    assert outcome.ok and [t.rank for t in outcome.topics] == [1, 2, 3]


async def test_timeout_is_a_clear_error(settings):
    def handler(request):
        raise httpx.ReadTimeout("slow", request=request)

    outcome, http = await outcomes_for(settings, handler)
    assert isinstance(outcome.error, FetchError)
    assert "timed out" in str(outcome.error) and str(outcome.error).startswith("v2ex:")
    assert len(http.sleeps) == 2  # retried twice
    # full jitter: the n-th wait is uniform in [0, backoff * 2**n] (backoff 0.01 here)
    assert 0 <= http.sleeps[0] <= 0.02 and 0 <= http.sleeps[1] <= 0.04


async def test_hanging_source_hits_deadline_without_delaying_others(settings):
    async def handler(request):
        await asyncio.sleep(60)

    http = fetcher(body_for(handler), deadline_s=0.3, timeout_s=30)
    loop = asyncio.get_running_loop()
    started = loop.time()
    sources = [V2ex.from_settings(settings), OtherV2ex.from_settings(settings)]
    results = {o.source: o for o in await fetch_all(sources, http)}
    assert loop.time() - started < 2
    assert results["other"].ok and results["other"].elapsed_s < 0.2
    assert "deadline" in str(results["v2ex"].error)


async def test_5xx_retried_then_reported(settings):
    calls = []

    def handler(request):
        calls.append(request)
        return httpx.Response(503, text="busy")

    outcome, _ = await outcomes_for(settings, handler)
    assert len(calls) == 3
    assert outcome.error.kind == "fetch" and "HTTP 503" in str(outcome.error)


async def test_5xx_then_success_recovers(settings):
    answers = iter([httpx.Response(502), httpx.Response(200, content=GOOD)])
    outcome, _ = await outcomes_for(settings, lambda r: next(answers))
    assert outcome.ok and len(outcome.topics) == 3


async def test_429_honours_retry_after(settings):
    answers = iter([httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, content=GOOD)])
    outcome, http = await outcomes_for(settings, lambda r: next(answers), max_backoff_s=30)
    assert outcome.ok
    assert http.sleeps == [7.0]


async def test_retry_after_is_a_field_of_the_error(settings):
    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(429, headers={"Retry-After": "2"}),
                                    max_backoff_s=0)
    assert isinstance(outcome.error, FetchError)
    assert outcome.error.status == 429 and outcome.error.retry_after == 2.0


async def test_retry_after_is_capped_by_max_backoff(settings):
    answers = iter([httpx.Response(503, headers={"Retry-After": "3600"}), httpx.Response(200, content=GOOD)])
    outcome, http = await outcomes_for(settings, lambda r: next(answers), max_backoff_s=30)
    assert outcome.ok and http.sleeps == [30.0]


async def test_4xx_is_not_retried(settings):
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(403, text="forbidden")

    outcome, _ = await outcomes_for(settings, handler)
    assert len(calls) == 1 and "HTTP 403" in str(outcome.error)


async def test_malformed_json(settings):
    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(200, content=b'[{"title": "x",'))
    assert isinstance(outcome.error, ParseError) and "malformed JSON" in str(outcome.error)


async def test_html_error_page_where_json_expected(settings):
    page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(200, content=page))
    assert isinstance(outcome.error, ParseError) and "HTML page where JSON was expected" in str(outcome.error)


async def test_changed_schema(settings):
    changed = json.dumps({"data": {"topics": [{"name": "x"}]}}).encode()
    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(200, content=changed))
    assert isinstance(outcome.error, ParseError) and "expected a JSON array" in str(outcome.error)


async def test_20mb_body_is_cut_off(settings):
    huge = b"[" + b" " * (20 * 1024 * 1024) + b"]"
    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(200, content=huge), max_body_bytes=5_000_000)
    assert isinstance(outcome.error, TooLargeError) and "cap" in str(outcome.error)


async def test_20mb_streamed_body_without_length_is_cut_off(settings):
    async def stream():
        for _ in range(20):
            yield b" " * (1024 * 1024)

    outcome, _ = await outcomes_for(settings, lambda r: httpx.Response(200, content=stream()),
                                    max_body_bytes=5_000_000)
    assert isinstance(outcome.error, TooLargeError)


async def test_connection_refused(settings):
    def handler(request):
        raise httpx.ConnectError("refused", request=request)

    outcome, _ = await outcomes_for(settings, handler)
    assert "connection failed" in str(outcome.error)


async def test_conditional_get_replays_cached_body_on_304(settings):
    seen_headers = []

    def handler(request):
        seen_headers.append(request.headers.get("If-None-Match"))
        if request.headers.get("If-None-Match") == '"v1"':
            return httpx.Response(304)
        return httpx.Response(200, content=GOOD, headers={"ETag": '"v1"'})

    http = fetcher(handler)
    first = await fetch_one(V2ex.from_settings(settings), http)
    second = await fetch_one(V2ex.from_settings(settings), http)
    assert seen_headers == [None, '"v1"']
    assert [t.title for t in second.topics] == [t.title for t in first.topics]


async def test_circuit_breaker_opens_and_half_opens(settings):
    now = [0.0]
    breaker = CircuitBreaker(threshold=2, cooldown_s=60, clock=lambda: now[0])
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(500)

    http = fetcher(handler, retries=0)
    for _ in range(2):
        assert not (await fetch_one(V2ex.from_settings(settings), http, breaker)).ok
    skipped = await fetch_one(V2ex.from_settings(settings), http, breaker)
    assert skipped.error.kind == "circuit_open" and len(calls) == 2
    now[0] = 61
    await fetch_one(V2ex.from_settings(settings), http, breaker)
    assert len(calls) == 3


async def test_parser_bug_becomes_an_outcome(settings):
    class Broken(V2ex):
        def parse(self, body, *, url=None):
            raise ZeroDivisionError("boom")

    outcome = await fetch_one(Broken.from_settings(settings), fetcher(lambda r: httpx.Response(200, content=GOOD)))
    assert outcome.status == "error" and "ZeroDivisionError" in str(outcome.error)


@pytest.mark.parametrize(("text", "expected"), [
    ("1479 万热度", 14_790_000), ("1854万", 18_540_000), ("3.1亿", 310_000_000), ("1.2亿", 120_000_000),
    ("200,000+", 200_000), ("1.2M", 1_200_000), ("15K+", 15_000), ("破万", 10_000), ("7944591", 7_944_591),
    ("", None), ("热", None), (None, None), (412, 412),
])
def test_heat_text_to_number(text, expected):
    from agent.sources.heat import parse_heat

    assert parse_heat(text) == expected
