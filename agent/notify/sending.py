"""Where a push is sent from: threads of its own, a deadline per send, and (for a key's channel) a
connection only to a public address.

apprise sends synchronously through requests, so a send holds a thread until the service answers.
These threads are the notifier's alone (`SendPool`), never asyncio's default executor that the
request path's store and model calls share: a channel that never answers can hold at most this
pool, and the caller gives up on it after `SEND_DEADLINE_S` while the thread finishes on its own
(the plugin's socket timeouts, set by `channel.py`, bound it).

A key's channel may name any host, so its connections are checked where they are made: urllib3's
`create_connection` resolves the name once, refuses unless every address is global, and connects
to the address it checked (no second lookup for a rebinding DNS answer to change).
"""

from __future__ import annotations

import asyncio
import contextvars
import ipaddress
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import urllib3.util.connection as _urllib3_connection

__all__ = ["SEND_DEADLINE_S", "SEND_THREADS", "NotGlobalAddress", "SendPool", "is_global_address", "public_only"]

SEND_THREADS = 8  # sends in flight at once, every channel of every owner together
SEND_DEADLINE_S = 10.0  # the longest a caller waits for one send (connect 3 s + read 5 s, and a slot)

# a context variable, not a thread-local: it goes along wherever the send's context is copied
_allowed: contextvars.ContextVar[Callable[[str], bool] | None] = contextvars.ContextVar("allowed", default=None)


class NotGlobalAddress(OSError):
    """A key's channel resolved to a loopback, private, link-local or otherwise non-global address."""


def is_global_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is no part of the address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


_original_create_connection = _urllib3_connection.create_connection


def _checked_create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
    allowed = _allowed.get()
    if allowed is None:
        return _original_create_connection(address, *args, **kwargs)
    host, port = address
    infos = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
    addresses = [str(info[4][0]) for info in infos]
    refused = [a for a in addresses if not allowed(a)]
    if refused or not addresses:
        raise NotGlobalAddress(f"refused: {host} resolves to a non-global address ({', '.join(refused[:3])})")
    return _original_create_connection((addresses[0], port), *args, **kwargs)


_urllib3_connection.create_connection = _checked_create_connection  # type: ignore[assignment]


class public_only:  # noqa: N801 - used as a `with` statement, like contextlib's
    """While the block runs (in this context), HTTP connections go only to addresses `allowed`
    accepts (by default: global ones)."""

    def __init__(self, allowed: Callable[[str], bool] = is_global_address) -> None:
        self.allowed = allowed
        self._token: contextvars.Token[Callable[[str], bool] | None] | None = None

    def __enter__(self) -> None:
        self._token = _allowed.set(self.allowed)

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _allowed.reset(self._token)


class SendPool:
    """Threads for blocking sends, `threads` at most in flight; a send not done by `deadline_s`
    (waiting for a thread included) is given up as failed."""

    def __init__(self, threads: int = SEND_THREADS, deadline_s: float = SEND_DEADLINE_S) -> None:
        self.threads = threads
        self.deadline_s = deadline_s
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="trendlens-notify")
        self._slots = threading.BoundedSemaphore(threads)  # released by the thread, even after a give-up
        self._count = threading.Lock()
        self.busy = 0
        self.timed_out = 0

    async def run(self, send: Callable[[], bool]) -> bool:
        """`send()` in a thread of this pool; False when it failed, raised or missed the deadline."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.deadline_s
        while not self._slots.acquire(blocking=False):  # every thread is held: wait, never queue unbounded
            if loop.time() >= deadline:
                self.timed_out += 1
                return False
            await asyncio.sleep(0.05)
        with self._count:
            self.busy += 1

        def held() -> bool:
            try:
                return send()
            finally:
                with self._count:
                    self.busy -= 1
                self._slots.release()

        future = loop.run_in_executor(self._executor, held)
        try:
            return bool(await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - loop.time())))
        except TimeoutError:
            self.timed_out += 1
            future.add_done_callback(_consume)
            return False
        except Exception:  # noqa: BLE001 - a plugin's exception is a failed send, counted by the caller
            return False

    @property
    def saturated(self) -> bool:
        return self.busy >= self.threads

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # a send given up on may still raise: read, so asyncio does not log it
