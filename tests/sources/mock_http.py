"""Fetching a source through `httpx.MockTransport`: the one way these tests do HTTP."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from agent.collect.fetching import FetchPolicy, HttpFetcher
from agent.models import Topic
from agent.sources import Source

Handler = Callable[[httpx.Request], httpx.Response]


def fetcher(handler: Handler, *, replaying: bool = False) -> HttpFetcher:
    """An HttpFetcher answering every request with `handler`, without retries (`replaying`: as the
    synthetic snapshot would)."""
    return HttpFetcher(httpx.AsyncClient(transport=httpx.MockTransport(handler)), FetchPolicy(retries=0),
                       replaying=replaying)


async def fetch_with(source: Source, handler: Handler) -> list[Topic]:
    """`source.fetch` against `handler`; errors propagate as the source raised them."""
    http = fetcher(handler)
    async with http.client:
        return await source.fetch(http)
