"""Getting bodies from upstream without letting one bad platform hurt the others.

`HttpFetcher.get` adds to one shared `httpx.AsyncClient`: a per-request timeout,
retries (a `tenacity` policy) with exponential backoff and full jitter on transient
failures (connect errors, timeouts, 5xx, 429 honouring Retry-After), conditional GET
(ETag/Last-Modified, replaying the cached body on 304) and a streamed size cap.
`fetch_all` runs sources concurrently, each under its own deadline and circuit
breaker, and reports one `SourceOutcome` per source.

Redirects are followed here, hop by hop, never by the client: an upstream (or whoever answers
for it) may only send a source on to that source's own hosts (`RedirectScope`), and never to a
private, loopback or link-local address unless the source's own endpoint is there (a feed the
operator configured on their own network).
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_random_exponential

from agent.errors import CircuitOpenError, FetchError, SourceDisabled, SourceError, TooLargeError
from agent.models import Topic
from agent.settings import FetchOptions
from agent.sources.base import Source

__all__ = ["MAX_REDIRECTS", "CircuitBreaker", "FetchPolicy", "HttpFetcher", "RedirectScope", "Resolver",
           "SourceOutcome", "fetch_all", "make_client", "resolve_host"]

MAX_REDIRECTS = 5  # a hot list moved once or twice; more is a loop or a detour

Resolver = Callable[[str], Awaitable[list[str]]]
"""host name -> its addresses (injected so tests answer without DNS)."""


async def resolve_host(host: str) -> list[str]:
    """The addresses `host` resolves to, as the system resolver answers."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is no part of the address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _host(url: str) -> str | None:
    try:
        host = httpx.URL(url).host
    except httpx.InvalidURL:
        return None
    return host.lower().rstrip(".") or None


@dataclass(frozen=True)
class RedirectScope:
    """Where a source's requests may be redirected.

    `hosts` are the hosts its endpoints name: the request goes there anyway, so a redirect back to
    one is followed whatever its address (a self-hosted feed on the operator's network stays
    reachable). Elsewhere only its declared `domains` and their subdomains, and only on public
    addresses: an open redirect on a platform must not turn a fetch into a request to the cloud
    metadata service, a loopback Redis or the office network."""

    hosts: frozenset[str] = frozenset()
    domains: tuple[str, ...] = ()

    @classmethod
    def of(cls, source: Source) -> RedirectScope:
        try:
            urls = [endpoint.url for endpoint in source.endpoints()]
        except Exception:  # noqa: BLE001 - a source that cannot name its endpoints gets the narrowest scope
            urls = []
        return cls(hosts=frozenset(h for h in map(_host, urls) if h),
                   domains=tuple(d.lower().rstrip(".") for d in source.domains))

    def with_host(self, host: str | None) -> RedirectScope:
        return self if not host else RedirectScope(hosts=self.hosts | {host}, domains=self.domains)

    def in_domains(self, host: str) -> bool:
        return any(host == d or host.endswith("." + d) for d in self.domains)


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
        follow_redirects=False,  # HttpFetcher follows them itself, within each source's own hosts
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
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep, resolve: Resolver = resolve_host) -> None:
        self.client = client
        self.policy = policy or FetchPolicy()
        self.replaying = replaying  # the client answers from a snapshot, not the network
        self._sleep = sleep
        self._resolve = resolve
        self._cache: dict[str, _Cached] = {}
        # source name -> where its redirects may go; a name never seen here: only the requested host
        self._scopes: dict[str, RedirectScope] = {}

    def admit(self, source: Source) -> None:
        """Let `source`'s requests be redirected within its own hosts (`RedirectScope.of`)."""
        self._scopes[source.name] = RedirectScope.of(source)

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
        scope = self._scopes.get(source, RedirectScope()).with_host(_host(url))
        try:
            request = self.client.build_request(method, url, headers=request_headers, data=data,
                                                timeout=self.policy.timeout_s)
            response = await self.client.send(request, auth=auth, stream=True, follow_redirects=False)
            for _ in range(MAX_REDIRECTS):
                target = response.next_request  # httpx drops Authorization when it leaves the origin
                if target is None:
                    break
                await response.aclose()
                await self._check_redirect(source, url, target.url, scope)
                response = await self.client.send(target, stream=True, follow_redirects=False)
            try:
                if response.next_request is not None:
                    raise FetchError(source, f"more than {MAX_REDIRECTS} redirects", url=url, transient=False)
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
            finally:
                await response.aclose()
        except httpx.TimeoutException:
            raise FetchError(source, f"timed out after {self.policy.timeout_s:g}s", url=url) from None
        except httpx.TransportError as exc:
            raise FetchError(source, f"connection failed ({type(exc).__name__})", url=url) from None

    async def _check_redirect(self, source: str, url: str, target: httpx.URL, scope: RedirectScope) -> None:
        """Raise FetchError (not transient: asking again gets the same answer) for a hop out of scope."""
        host = target.host.lower().rstrip(".")
        why: str | None = None
        if target.scheme not in ("http", "https"):
            why = f"to a {target.scheme}: URL"
        elif target.userinfo:
            why = "to a URL carrying credentials"
        elif host in scope.hosts:
            return
        elif not scope.in_domains(host):
            why = f"to {host}, which is not one of {source}'s own hosts"
        else:
            try:
                addresses = [host] if _is_address(host) else await self._resolve(host)
            except OSError as exc:
                raise FetchError(source, f"redirect to {host}: cannot resolve it ({exc})", url=url) from None
            private = [a for a in addresses if not _is_public(a)]
            if private or not addresses:
                why = f"to {host}, on a private, loopback or link-local address ({(private or ['none'])[0]})"
        if why:
            raise FetchError(source, f"redirect refused: {why}", url=url, transient=False)


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
    http.admit(source)
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
