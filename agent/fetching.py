"""Getting bodies from upstream without letting one bad platform hurt the others.

`HttpFetcher.get` adds to one shared `httpx.AsyncClient`: a per-request timeout,
retries (a `tenacity` policy) with exponential backoff and full jitter on transient
failures (connect errors, timeouts, 5xx, 429 honouring Retry-After), conditional GET
(ETag/Last-Modified, replaying the cached body on 304) and a streamed size cap.
`fetch_all` runs sources concurrently, each under its own deadline and circuit
breaker, and reports one `SourceOutcome` per source.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_random_exponential

from .errors import CircuitOpenError, FetchError, SourceDisabled, SourceError, TooLargeError
from .models import Topic
from .settings import FetchOptions
from .sources.base import Source

__all__ = ["CircuitBreaker", "FetchPolicy", "HttpFetcher", "SourceOutcome", "fetch_all", "make_client"]


@dataclass(frozen=True, kw_only=True)
class FetchPolicy:
    timeout_s: float = 10.0
    deadline_s: float = 30.0
    retries: int = 2
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0
    max_body_bytes: int = 5_000_000

    @classmethod
    def from_options(cls, fetch: FetchOptions) -> FetchPolicy:
        return cls(timeout_s=fetch.timeout_s, deadline_s=fetch.deadline_s, retries=fetch.retries,
                   backoff_s=fetch.backoff_s, max_body_bytes=fetch.max_body_bytes)


def make_client(fetch: FetchOptions, transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The one client every source shares (connection pooling, HTTP keep-alive)."""
    return httpx.AsyncClient(
        transport=transport,
        headers={"User-Agent": fetch.user_agent, "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"},
        timeout=httpx.Timeout(fetch.timeout_s),
        follow_redirects=True,
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
    )


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


@dataclass
class _Cached:
    etag: str | None
    last_modified: str | None
    body: bytes


class HttpFetcher:
    """GET with retries, backoff, conditional requests and a body size cap."""

    def __init__(self, client: httpx.AsyncClient, policy: FetchPolicy | None = None, *, replaying: bool = False,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.client = client
        self.policy = policy or FetchPolicy()
        self.replaying = replaying  # the client answers from a snapshot, not the network
        self._sleep = sleep
        self._cache: dict[str, _Cached] = {}

    async def get(self, source: str, url: str, *, headers: Mapping[str, str] | None = None,
                  method: str = "GET", data: Mapping[str, str] | None = None,
                  auth: tuple[str, str] | None = None) -> bytes:
        body = b""
        async for attempt in AsyncRetrying(
            retry=retry_if_exception(lambda exc: isinstance(exc, FetchError) and exc.transient),
            stop=stop_after_attempt(self.policy.retries + 1), wait=self._wait, sleep=self._pause, reraise=True,
        ):
            with attempt:
                body = await self._once(source, url, headers, method, data, auth)
        return body

    async def _pause(self, seconds: float) -> None:
        await self._sleep(seconds)

    def _wait(self, retry_state: RetryCallState) -> float:
        """The upstream's Retry-After when it sent one, else full jitter: spread the retries of many
        clients instead of stampeding in step (uniform in [0, backoff * 2**n], n = retries so far)."""
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        delay = exc.retry_after if isinstance(exc, FetchError) else None
        if delay is None:
            jitter = wait_random_exponential(multiplier=2 * self.policy.backoff_s, max=self.policy.max_backoff_s)
            delay = jitter(retry_state)
        return float(min(delay, self.policy.max_backoff_s))

    async def _once(self, source: str, url: str, headers: Mapping[str, str] | None, method: str,
                    data: Mapping[str, str] | None, auth: tuple[str, str] | None) -> bytes:
        request_headers = dict(headers or {})
        cached = self._cache.get(url) if method == "GET" else None
        if cached:
            if cached.etag:
                request_headers["If-None-Match"] = cached.etag
            if cached.last_modified:
                request_headers["If-Modified-Since"] = cached.last_modified
        try:
            async with self.client.stream(method, url, headers=request_headers, data=data, auth=auth,
                                          timeout=self.policy.timeout_s) as response:
                if response.status_code == 304 and cached:
                    return cached.body
                if response.status_code == 429 or response.status_code >= 500:
                    raise FetchError(source, f"HTTP {response.status_code}", url=url, status=response.status_code,
                                     retry_after=_retry_after(response.headers.get("Retry-After")))
                if response.status_code >= 400:
                    raise FetchError(source, f"HTTP {response.status_code}", url=url, transient=False,
                                     status=response.status_code)
                declared = response.headers.get("Content-Length")
                if declared and declared.isdigit() and int(declared) > self.policy.max_body_bytes:
                    raise TooLargeError(source, f"body of {int(declared)} bytes exceeds the "
                                                f"{self.policy.max_body_bytes}-byte cap", url=url)
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > self.policy.max_body_bytes:
                        raise TooLargeError(source, f"body exceeds the {self.policy.max_body_bytes}-byte cap",
                                            url=url)
                    chunks.append(chunk)
                body = b"".join(chunks)
                etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
                if method == "GET" and (etag or modified):
                    self._cache[url] = _Cached(etag, modified, body)
                return body
        except httpx.TimeoutException:
            raise FetchError(source, f"timed out after {self.policy.timeout_s:g}s", url=url) from None
        except httpx.TransportError as exc:
            raise FetchError(source, f"connection failed ({type(exc).__name__})", url=url) from None


class CircuitBreaker:
    """Stops calling a source after `threshold` consecutive failures, for `cooldown_s`.

    After the cooldown one trial call goes through (half-open); success closes it.
    """

    def __init__(self, threshold: int = 5, cooldown_s: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold, self.cooldown_s, self._clock = threshold, cooldown_s, clock
        self.failures = 0
        self.opened_at: float | None = None

    def allow(self) -> bool:
        if self.opened_at is None:
            return True
        return self._clock() - self.opened_at >= self.cooldown_s

    def record(self, ok: bool) -> None:
        if ok:
            self.failures, self.opened_at = 0, None
            return
        self.failures += 1
        if self.failures >= self.threshold:
            self.opened_at = self._clock()


@dataclass(frozen=True, kw_only=True)
class SourceOutcome:
    source: str
    topics: list[Topic] = field(default_factory=list)
    error: SourceError | None = None
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def status(self) -> str:
        return "ok" if self.error is None else self.error.kind


async def fetch_one(source: Source, http: HttpFetcher, breaker: CircuitBreaker | None = None,
                    deadline_s: float | None = None) -> SourceOutcome:
    """Fetch one source; every failure becomes an outcome, never an exception."""
    started = time.monotonic()
    reason = source.disabled_reason(replaying=http.replaying)
    if reason:
        return SourceOutcome(source=source.name, error=SourceDisabled(source.name, reason))
    if breaker and not breaker.allow():
        return SourceOutcome(source=source.name, error=CircuitOpenError(
            source.name, f"skipped after {breaker.failures} consecutive failures; retrying after cooldown"))
    deadline = deadline_s or http.policy.deadline_s
    try:
        topics = await asyncio.wait_for(source.fetch(http), timeout=deadline)
        error: SourceError | None = None
    except TimeoutError:
        topics, error = [], FetchError(source.name, f"no answer within the {deadline:g}s deadline")
    except SourceError as exc:
        topics, error = [], exc
    except Exception as exc:  # noqa: BLE001 - a parser bug must not take the cycle down
        topics, error = [], SourceError(source.name, f"internal error {type(exc).__name__}: {exc}")
    if breaker:
        breaker.record(error is None)
    return SourceOutcome(source=source.name, topics=topics, error=error, elapsed_s=time.monotonic() - started)


async def fetch_all(sources: Iterable[Source], http: HttpFetcher,
                    breakers: Mapping[str, CircuitBreaker] | None = None) -> list[SourceOutcome]:
    """Fetch every source concurrently; one hanging or failing source delays no other."""
    breakers = breakers or {}
    jobs = [fetch_one(s, http, breakers.get(s.name)) for s in sources]
    return list(await asyncio.gather(*jobs))
