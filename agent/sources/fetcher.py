"""What a source fetches with: `Fetcher`, beside `Source`.

Sources only need "GET this URL under my name's policy"; the retrying, size-capped,
cached implementation is `agent.collect.fetching.HttpFetcher`. Typing sources against this
protocol keeps `agent.sources` from importing the fetching machinery that imports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import httpx

__all__ = ["Fetcher", "FetcherPolicy"]


class FetcherPolicy(Protocol):
    @property
    def timeout_s(self) -> float: ...


class Fetcher(Protocol):
    @property
    def client(self) -> httpx.AsyncClient:
        """The shared client, for the rare source that must stream (e.g. a cookie handshake)."""
        ...

    @property
    def policy(self) -> FetcherPolicy: ...

    @property
    def replaying(self) -> bool:
        """Whether answers come from a snapshot rather than the network (no credentials needed then)."""
        ...

    async def get(self, source: str, url: str, *, headers: Mapping[str, str] | None = None,
                  method: str = "GET", data: Mapping[str, str] | None = None,
                  auth: tuple[str, str] | None = None) -> bytes:
        """The response body; raises `FetchError` (with `retry_after` when the server said so)."""
        ...
