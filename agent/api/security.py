"""API keys (stored hashed, never logged), per-key rate limits, and the request size cap."""

from __future__ import annotations

import asyncio
import hmac
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from agent.store.keys import Role, any_key_stored, hash_key, key_role, make_key

from ..settings import Settings
from ..store import Store

__all__ = ["GuessThrottle", "KeyRing", "RateLimiter", "TooManyGuesses", "hash_key"]

# Instances sharing a database learn of keys made or revoked elsewhere by asking the store; these
# bound how stale an instance's answer may be, and how often a wrong key costs a query.
KNOWN_RECHECK_S = 30.0  # a revoked key stops working everywhere within this
UNKNOWN_RECHECK_S = 2.0  # a key just made elsewhere works here within this
MAX_REMEMBERED = 10_000  # unknown keys remembered at most (a client spraying random keys); the oldest go first
# Key guessing, per client address: this many unknown keys in the window, then 429 until it moves on.
# A client with a mistyped or revoked key retries far less often; a sprayer is slowed to a crawl.
GUESSES_PER_WINDOW = 20
GUESS_WINDOW_S = 60.0
MAX_GUESSERS = 10_000  # addresses tracked at most; the longest quiet are forgotten first


class TooManyGuesses(Exception):
    """This client sent too many unknown keys lately (429 with Retry-After)."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"too many unknown API keys from this address; retry in {retry_after_s} s")
        self.retry_after_s = retry_after_s


class GuessThrottle:
    """Unknown keys per client address in a sliding window; memory bounded by `MAX_GUESSERS`."""

    def __init__(self, *, limit: int = GUESSES_PER_WINDOW, window_s: float = GUESS_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window_s, self._clock = limit, window_s, clock
        self._misses: OrderedDict[str, deque[float]] = OrderedDict()
        self._looked_up: OrderedDict[str, float] = OrderedDict()  # throttled address -> its last store lookup

    def look_up_anyway(self, client: str) -> bool:
        """Whether a throttled address may have one key asked of the store now: one every
        `UNKNOWN_RECHECK_S`. A stored key this instance has not seen yet (made elsewhere, or on a
        wearer's first request) then gets in behind a sprayer sharing its address (a NAT, a proxy),
        while the store answers that address at most once per interval."""
        now = self._clock()
        last = self._looked_up.get(client)
        if last is not None and now - last < UNKNOWN_RECHECK_S:
            return False
        self._looked_up.pop(client, None)
        self._looked_up[client] = now
        if len(self._looked_up) > MAX_GUESSERS:
            self._looked_up.popitem(last=False)
        return True

    def retry_after(self, client: str) -> float:
        """0 when `client` may try a key it is not known to hold, else the seconds until it may."""
        misses = self._misses.get(client)
        if misses is None:
            return 0.0
        now = self._clock()
        while misses and now - misses[0] >= self.window_s:
            misses.popleft()
        return 0.0 if len(misses) < self.limit else self.window_s - (now - misses[0])

    def miss(self, client: str) -> None:
        misses = self._misses.pop(client, None) or deque(maxlen=self.limit)
        misses.append(self._clock())
        self._misses[client] = misses  # most recent last
        if len(self._misses) > MAX_GUESSERS:
            self._misses.popitem(last=False)


def _hashes(keys: str | None) -> set[str]:
    return {hash_key(k.strip()) for k in (keys or "").split(",") if k.strip()}


class KeyRing:
    """Accepted bearer keys and their roles: `TRENDLENS_API_KEYS` (clients), `TRENDLENS_ADMIN_KEYS`
    (admins; a key in both is an admin), plus the hashed keys in the store with the role stored."""

    def __init__(self, settings: Settings, store: Store, *, clock: Callable[[], float] = time.monotonic,
                 known_recheck_s: float = KNOWN_RECHECK_S) -> None:
        self.store = store
        self._clock = clock
        self.known_recheck_s = known_recheck_s  # a revoked key stops working, and its sockets close, within this
        self._admins = _hashes(settings.server.admin_keys)
        self._env = _hashes(settings.server.api_keys) | self._admins
        # stored keys' hashes -> (when the store said so, their role); few, so never evicted: a key
        # known here is answered before the guess throttle even once its answer is due a recheck
        self._seen: dict[str, tuple[float, Role]] = {}
        self._unknown: OrderedDict[str, float] = OrderedDict()  # hashes the store lacked -> when, oldest first
        self.guesses = GuessThrottle(clock=clock)

    @property
    def empty(self) -> bool:
        return not self._env and not any_key_stored(self.store)

    def create(self, label: str = "default", *, role: Role = "client") -> str:
        """Make a new key, keep only its hash, return it (to be shown once)."""
        key = make_key(self.store, label, role=role)
        self._seen[hash_key(key)] = (self._clock(), role)
        return key

    def role(self, digest: str) -> Role:
        """The role of a key `check` accepted: what it may do beyond its own sessions."""
        if any(hmac.compare_digest(admin, digest) for admin in self._admins):
            return "admin"
        seen = self._seen.get(digest)
        return seen[1] if seen is not None else "client"

    def forget_answers(self) -> None:
        """Ask the store again about every stored key on its next use (what `KNOWN_RECHECK_S` does in time)."""
        self._seen = {digest: (float("-inf"), role) for digest, (_, role) in self._seen.items()}

    def check(self, key: str | None, client: str | None = None) -> str | None:
        """The key's hash when it is accepted, else None; TooManyGuesses when `client` is guessing.

        The configured keys are compared in constant time. Stored keys are looked up by their
        SHA-256, which an attacker cannot steer, and the answer is kept for a few seconds. A
        key known here (however long ago) is answered before the guessing check, and a throttled
        address still has one key a `UNKNOWN_RECHECK_S` asked of the store, so a sprayer behind
        the same address does not lock out a wearer whose key is stored.
        """
        answer = self._cached(key, client)
        if answer is not _ASK:
            return answer  # type: ignore[return-value]
        assert key
        return self._remember(hash_key(key), key_role(self.store, hash_key(key)), client)

    async def check_async(self, key: str | None, client: str | None = None) -> str | None:
        """`check`, with the store lookup (an unknown key) off the event loop."""
        answer = self._cached(key, client)
        if answer is not _ASK:
            return answer  # type: ignore[return-value]
        assert key
        digest = hash_key(key)
        return self._remember(digest, await asyncio.to_thread(key_role, self.store, digest), client)

    async def still_valid_async(self, digest: str, max_age_s: float) -> bool:
        """Whether the key hashed as `digest` (accepted before) is still valid, by an answer of the
        store no older than `max_age_s` (asked off the event loop when it is older)."""
        if any(hmac.compare_digest(known, digest) for known in self._env):
            return True  # configured keys change only with a restart
        seen = self._seen.get(digest)
        if seen is not None and self._clock() - seen[0] < max_age_s:
            return True
        return self._remember(digest, await asyncio.to_thread(key_role, self.store, digest), None) is not None

    def _cached(self, key: str | None, client: str | None) -> str | None | object:
        if not key:
            return None
        digest = hash_key(key)
        ok = False
        for known in self._env:
            ok |= hmac.compare_digest(known, digest)
        if ok:
            return digest
        now = self._clock()
        seen = self._seen.get(digest)
        if seen is not None:  # known here: fresh, or asked again (revoked?), never throttled
            return digest if now - seen[0] <= self.known_recheck_s else _ASK
        unknown = self._unknown.get(digest)
        known_unknown = unknown is not None and now - unknown <= UNKNOWN_RECHECK_S
        if client is not None:
            wait = self.guesses.retry_after(client)
            if wait and (known_unknown or not self.guesses.look_up_anyway(client)):
                raise TooManyGuesses(max(1, math.ceil(wait)))
        if known_unknown:
            if client is not None:
                self.guesses.miss(client)
            return None
        return _ASK

    def _remember(self, digest: str, role: Role | None, client: str | None) -> str | None:
        now = self._clock()
        if role is not None:
            self._seen[digest] = (now, role)
            self._unknown.pop(digest, None)
            return digest
        self._seen.pop(digest, None)  # revoked
        self._unknown.pop(digest, None)
        self._unknown[digest] = now
        if len(self._unknown) > MAX_REMEMBERED:
            self._unknown.popitem(last=False)  # only unknown keys are forgotten, never the valid ones
        if client is not None:
            if self.guesses.retry_after(client):
                # looked up past the throttle (`look_up_anyway`) and still unknown: the 429 stands
                raise TooManyGuesses(max(1, math.ceil(self.guesses.retry_after(client))))
            self.guesses.miss(client)
        return None


_ASK = object()  # `_cached`: the store must be asked


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    full_at: float = 0.0  # when it holds its whole burst again: from then on it is a new bucket


@dataclass
class RateLimiter:
    """Token bucket per key: `rate` requests a second sustained, `burst` at once.

    Every session has a bucket, and clients make sessions: a bucket that has refilled is the same as
    none, so the least recently drawn are let go once full, and the buckets held are only those drawn
    within the last `burst / rate` seconds, however many sessions came and went."""

    rate: float
    burst: int
    buckets: OrderedDict[str, _Bucket] = field(default_factory=OrderedDict)

    def take(self, key: str, now: float | None = None, *, rate: float | None = None,
             burst: int | None = None) -> float:
        """0 when allowed, else the seconds to wait before retrying; `rate`/`burst` replace the
        bucket's own for this draw (a key's limit that scales with its live sessions)."""
        now = time.monotonic() if now is None else now
        rate = self.rate if rate is None else rate
        burst = self.burst if burst is None else burst
        self._let_go_full(now)
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = _Bucket(tokens=float(burst), stamp=now)
        self.buckets.move_to_end(key)
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.stamp) * rate)
        bucket.stamp = now
        wait = 0.0
        if bucket.tokens >= 1:
            bucket.tokens -= 1
        else:
            wait = (1 - bucket.tokens) / rate
        bucket.full_at = now + (burst - bucket.tokens) / rate
        return wait

    def _let_go_full(self, now: float) -> None:
        """Drop the least recently drawn buckets that have refilled (a few per draw: amortised O(1))."""
        while self.buckets:
            oldest = next(iter(self.buckets.values()))
            if oldest.full_at > now:
                return
            self.buckets.popitem(last=False)
