"""The in-process token bucket: its limit, and what it holds while clients come and go."""

from __future__ import annotations

from agent.api.security import RateLimiter


def test_a_key_gets_its_burst_then_waits_at_its_rate() -> None:
    limiter = RateLimiter(rate=2.0, burst=3)
    assert [limiter.take("k", now=0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("k", now=0.0) == 0.5
    assert limiter.take("k", now=0.5) == 0.0


def test_buckets_of_sessions_gone_quiet_are_let_go_and_refill_as_new() -> None:
    """A client that makes a session per request must not grow the limiter without bound: a bucket
    that has refilled is the same as none."""
    limiter = RateLimiter(rate=1.0, burst=2)
    for i in range(10_000):
        limiter.take(f"session-{i}", now=i * 0.01)  # 100 new sessions a second, one request each
    assert len(limiter.buckets) <= 110  # those drawn in the last second (burst / rate) only
    assert limiter.take("session-0", now=200.0) == 0.0  # long refilled: a whole burst again
    assert limiter.take("session-0", now=200.0) == 0.0
    assert limiter.take("session-0", now=200.0) > 0
