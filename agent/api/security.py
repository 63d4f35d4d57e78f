"""API keys (stored hashed, never logged), per-key rate limits, and the request size cap."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field

from ..models import utcnow
from ..settings import Settings
from ..store import Store

__all__ = ["KeyRing", "RateLimiter", "hash_key"]


def hash_key(key: str) -> str:
    # Keys are 32 random bytes: a fast hash is enough, there is nothing to brute-force.
    return hashlib.sha256(key.encode()).hexdigest()


class KeyRing:
    """Accepted bearer keys: `TRENDLENS_API_KEYS` plus the hashed keys in the store."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.store = store
        self._env = {hash_key(k.strip()) for k in (settings.api_keys or "").split(",") if k.strip()}
        self._stored = {r["key_hash"] for r in store.query("SELECT key_hash FROM api_keys")}

    @property
    def empty(self) -> bool:
        return not self._env and not self._stored

    def create(self, label: str = "default") -> str:
        """Make a new key, keep only its hash, return it (to be shown once)."""
        key = "tl_" + secrets.token_urlsafe(32)
        with self.store.transaction() as db:
            db.execute("INSERT INTO api_keys (key_hash, label, created_at) VALUES (?, ?, ?)",
                       (hash_key(key), label, utcnow().isoformat()))
        self._stored.add(hash_key(key))
        return key

    def check(self, key: str | None) -> str | None:
        """The key's hash when it is accepted, else None (constant-time per candidate)."""
        if not key:
            return None
        digest = hash_key(key)
        ok = False
        for known in self._env | self._stored:
            ok |= hmac.compare_digest(known, digest)
        return digest if ok else None


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
