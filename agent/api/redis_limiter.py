"""`RedisRateLimiter`: the per-key token bucket, kept in Redis so every instance draws on one bucket.

Behind a load balancer a key's requests land on any instance; buckets in process
would let N instances grant N times the limit. One Lua script reads, refills and
takes atomically, on Redis's own clock, so instances with skewed clocks agree.
"""

from __future__ import annotations

from typing import Any

from agent.live.shared_sessions import SharedStateError
from agent.store.redis_options import redis_options

__all__ = ["RedisRateLimiter"]

# KEYS[1] the bucket; ARGV rate (tokens/s), burst. Returns the wait in seconds, as a string
# (a Lua number would come back truncated to an integer).
_TAKE = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(b[1]) or burst
local stamp = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
"""


class RedisRateLimiter:
    """Same contract as `RateLimiter.take`: 0 when allowed, else the seconds to wait."""

    def __init__(self, url: str, rate: float, burst: int, *, prefix: str = "trendlens:ratelimit:") -> None:
        import redis

        self.rate, self.burst, self._prefix = rate, burst, prefix
        self._redis: Any = redis.Redis.from_url(url, **redis_options())
        self._take = self._redis.register_script(_TAKE)

    def take(self, key: str, now: float | None = None, *, rate: float | None = None,
             burst: int | None = None) -> float:
        # `now` is ignored: Redis's clock is the one all instances share
        from redis.exceptions import RedisError

        args = [self.rate if rate is None else rate, self.burst if burst is None else burst]
        try:
            return float(self._take(keys=[self._prefix + key], args=args))
        except (RedisError, OSError) as exc:
            raise SharedStateError(f"rate limits unavailable (Redis: {exc}); try again shortly") from exc

    def close(self) -> None:
        self._redis.close()
