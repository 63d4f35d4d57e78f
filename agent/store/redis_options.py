"""How every Redis client of the service connects: bounded waits, kept-alive sockets, checked idle connections.

Without these a Redis that stops answering (a partition, a paused VM) hangs each request until
the kernel gives up, minutes later, instead of the documented 503; and an idle connection that a
NAT or a firewall dropped silently is found dead only when it is next used (pub/sub: never).
"""

from __future__ import annotations

from typing import Any

__all__ = ["REDIS_CONNECT_TIMEOUT_S", "REDIS_HEALTH_CHECK_S", "REDIS_SOCKET_TIMEOUT_S", "redis_options"]

REDIS_CONNECT_TIMEOUT_S = 2.0
REDIS_SOCKET_TIMEOUT_S = 2.0  # no command of ours blocks on the server: each answers in milliseconds
REDIS_HEALTH_CHECK_S = 15  # an idle connection is PINGed before reuse after this long


def redis_options() -> dict[str, Any]:
    """Keyword arguments for `redis.Redis.from_url` / `redis.asyncio.from_url`.

    A pub/sub listener waits for messages with its own timeout (`REDIS_HEALTH_CHECK_S`), so that
    its idle connection is PINGed each interval too.
    """
    return {
        "decode_responses": True,
        "socket_connect_timeout": REDIS_CONNECT_TIMEOUT_S,
        "socket_timeout": REDIS_SOCKET_TIMEOUT_S,
        "socket_keepalive": True,
        "health_check_interval": REDIS_HEALTH_CHECK_S,
    }
