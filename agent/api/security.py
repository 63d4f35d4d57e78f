"""API keys (stored hashed, never logged), per-key rate limits, and the request size cap."""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..keys import hash_key, key_is_stored, make_key
from ..settings import Settings
from ..store import Store

__all__ = ["KeyRing", "RateLimiter", "hash_key"]

# Instances sharing a database learn of keys made or revoked elsewhere by asking the store; these
# bound how stale an instance's answer may be, and how often a wrong key costs a query.
KNOWN_RECHECK_S = 30.0  # a revoked key stops working everywhere within this
UNKNOWN_RECHECK_S = 2.0  # a key just made elsewhere works here within this
MAX_REMEMBERED = 10_000  # unknown keys remembered at most (a client spraying random keys)


class KeyRing:
    """Accepted bearer keys: `TRENDLENS_API_KEYS`, plus the hashed keys in the store."""

    def __init__(self, settings: Settings, store: Store, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self._clock = clock
        self._env = {hash_key(k.strip()) for k in (settings.api_keys or "").split(",") if k.strip()}
        self._seen: dict[str, tuple[bool, float]] = {}  # hash -> (stored?, when the store said so)

    @property
    def empty(self) -> bool:
        return not self._env and not self.store.query("SELECT 1 FROM api_keys LIMIT 1")

    def create(self, label: str = "default") -> str:
        """Make a new key, keep only its hash, return it (to be shown once)."""
        key = make_key(self.store, label)
        self._seen[hash_key(key)] = (True, self._clock())
        return key

    def check(self, key: str | None) -> str | None:
        """The key's hash when it is accepted, else None.

        The configured keys are compared in constant time. Stored keys are looked up by their
        SHA-256, which an attacker cannot steer, and the answer is kept for a few seconds.
        """
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
        if seen is None or now - seen[1] > (KNOWN_RECHECK_S if seen[0] else UNKNOWN_RECHECK_S):
            if len(self._seen) >= MAX_REMEMBERED:
                self._seen.clear()
            seen = (key_is_stored(self.store, digest), now)
            self._seen[digest] = seen
        return digest if seen[0] else None


@dataclass
class _Bucket:
    tokens: float
    stamp: float


@dataclass
class RateLimiter:
    """Token bucket per key: `rate` requests a second sustained, `burst` at once."""

    rate: float
    burst: int
    buckets: dict[str, _Bucket] = field(default_factory=dict)

    def take(self, key: str, now: float | None = None) -> float:
        """0 when allowed, else the seconds to wait before retrying."""
        now = time.monotonic() if now is None else now
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = _Bucket(tokens=float(self.burst), stamp=now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) / self.rate
