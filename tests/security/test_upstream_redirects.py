"""Where an upstream may send a fetch: the source's own hosts, never a private address it did not name.

Every answer comes from `httpx.MockTransport`; host names resolve through a table, never DNS.
"""

from __future__ import annotations

import httpx
import pytest

from agent.collect.fetching import MAX_REDIRECTS, HttpFetcher, fetch_one, make_client
from agent.errors import FetchError
from agent.settings import FeedConfig, Settings
from agent.sources.feed import Feed, FeedOptions
from agent.sources.v2ex import V2ex

HOT = b'[{"id": 1, "title": "moved list", "replies": 3}]'
RSS = b"<rss version='2.0'><channel><title>t</title><item><title>self-hosted item</title></item></channel></rss>"
V2EX = "https://www.v2ex.com/api/topics/hot.json"
DNS = {"cdn.v2ex.com": ["104.20.9.1"], "intranet.v2ex.com": ["10.0.0.5"], "v6.v2ex.com": ["fe80::1%eth0"]}


async def resolve(host: str) -> list[str]:
    if host not in DNS:
        raise OSError(f"unknown host {host}")
    return DNS[host]


def redirecting(first: str, location: str, body: bytes = HOT, status: int = 302):
    """`first` redirects to `location`; every other URL answers `body`. Returns (transport, seen)."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if str(request.url) == first:
            return httpx.Response(status, headers={"Location": location})
        return httpx.Response(200, content=body)

    return httpx.MockTransport(handler), seen


def fetcher(transport: httpx.MockTransport) -> HttpFetcher:
    return HttpFetcher(make_client(Settings().fetch, transport), resolve=resolve)


@pytest.mark.parametrize("location", [
    "http://169.254.169.254/latest/meta-data/iam/",  # the cloud metadata service
    "http://127.0.0.1:6379/",  # a loopback Redis
    "http://[::1]:8000/v1/topics",
    "http://10.1.2.3/admin",
    "https://evil.example/hot.json",  # public, but not the platform's
    "https://www.v2ex.com.evil.example/hot.json",
    "https://intranet.v2ex.com/hot.json",  # the platform's name on a private address
    "https://v6.v2ex.com/hot.json",  # link-local IPv6
    "https://user:pass@www.v2ex.com/hot.json",
    "file:///etc/passwd",
])
async def test_an_upstream_redirect_leaves_the_source_only_for_its_own_public_hosts(location: str) -> None:
    transport, seen = redirecting(V2EX, location)
    outcome = await fetch_one(V2ex(), fetcher(transport))
    assert not outcome.ok and "redirect refused" in str(outcome.error), outcome.error
    assert [str(r.url) for r in seen] == [V2EX]  # the target was never asked, not even once retried
    assert isinstance(outcome.error, FetchError) and not outcome.error.transient


@pytest.mark.parametrize("location", [
    "https://www.v2ex.com/api/topics/hot-v2.json",  # the endpoint's own host
    "https://cdn.v2ex.com/hot.json",  # its domain, on a public address
    "/api/topics/hot-v2.json",
])
async def test_a_redirect_within_the_source_s_own_public_hosts_is_followed(location: str) -> None:
    transport, seen = redirecting(V2EX, location)
    outcome = await fetch_one(V2ex(), fetcher(transport))
    assert outcome.ok, outcome.error
    assert [t.title for t in outcome.topics] == ["moved list"] and len(seen) == 2


async def test_a_feed_the_operator_configured_on_a_private_address_may_redirect_within_it() -> None:
    url = "http://192.168.1.20:8080/rss"
    feed = Feed(FeedOptions.for_feed(Settings(), FeedConfig(name="home", url=url)))
    transport, seen = redirecting(url, "http://192.168.1.20:8080/rss.xml", body=RSS, status=301)
    outcome = await fetch_one(feed, fetcher(transport))
    assert outcome.ok, outcome.error
    assert [t.title for t in outcome.topics] == ["self-hosted item"]
    # elsewhere on that network is still no part of the feed
    transport, seen = redirecting(url, "http://192.168.1.1/admin", body=RSS)
    outcome = await fetch_one(feed, fetcher(transport))
    assert not outcome.ok and "redirect refused" in str(outcome.error) and len(seen) == 1


async def test_credentials_stay_with_the_origin_that_was_given_them() -> None:
    transport, seen = redirecting(V2EX, "https://cdn.v2ex.com/hot.json")
    http = fetcher(transport)
    http.admit(V2ex())
    await http.get("v2ex", V2EX, headers={"Authorization": "bearer secret"})
    assert seen[0].headers["Authorization"] == "bearer secret"
    assert "Authorization" not in seen[1].headers


async def test_a_redirect_loop_ends() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        n = int(request.url.params.get("n", "0"))
        return httpx.Response(302, headers={"Location": f"{V2EX}?n={n + 1}"})

    http = fetcher(httpx.MockTransport(handler))
    outcome = await fetch_one(V2ex(), http)
    assert not outcome.ok and f"more than {MAX_REDIRECTS} redirects" in str(outcome.error)


async def test_the_shared_client_follows_no_redirect_by_itself() -> None:
    # a source streaming through `http.client` (Douyin's cookie handshake) is not led elsewhere either
    transport, seen = redirecting(V2EX, "http://169.254.169.254/")
    async with make_client(Settings().fetch, transport) as client:
        response = await client.get(V2EX)
    assert response.status_code == 302 and len(seen) == 1
