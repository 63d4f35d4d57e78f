"""The notifier: one message to every channel at once, each retried with back-off on its own.

A channel that fails (a wrong token, a service down) is retried `retries` times, waiting `backoff_s`,
then twice that, …; meanwhile the other channels have long been served, since every channel is sent
to in its own thread of the notifier's own pool (`sending.SendPool`, never the default executor),
given up after the pool's deadline. Its failures are counted in its `ChannelHealth` (read by /readyz) and in
`trendlens_notify_total{channel, outcome}`; the caller is told which channels got the message and
never gets an exception for a channel that did not.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import apprise
from pydantic import SecretStr

from .channel import OPERATOR, Channel, ChannelHealth, ChannelPolicy, SecretFilter, secrets_of
from .message import Message
from .sending import SendPool, is_global_address, public_only

if TYPE_CHECKING:
    from ..metrics import Metrics
    from ..settings import Settings

__all__ = ["KEY_SENDS", "SENDS", "Delivery", "Notifier"]

log = logging.getLogger("trendlens.notify")
# The loggers that see a channel's URL while sending: apprise's own and the HTTP pool under it
# (requests → urllib3 logs each request's path, where webhook keys live).
_SENDING_LOGGERS = ("apprise", "urllib3.connectionpool")
SENDS = SendPool()  # the operator's sends (TRENDLENS_NOTIFY_URLS: the digest, the operator's alerts)
KEY_SENDS = SendPool()  # every key's: a tenant's silent channels can hold these, never the operator's


@dataclass(frozen=True, kw_only=True)
class Delivery:
    channel: str
    ok: bool
    attempts: int


class Notifier:
    def __init__(self, urls: Sequence[str | SecretStr], *, retries: int = 3, backoff_s: float = 2.0,
                 metrics: Metrics | None = None, policy: ChannelPolicy = OPERATOR, pool: SendPool | None = None,
                 allowed: Callable[[str], bool] = is_global_address,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        plain = [u.get_secret_value() if isinstance(u, SecretStr) else u for u in urls]
        # before the channels are parsed: apprise logs each URL as it loads it
        self._filter = SecretFilter(set().union(*(secrets_of(u) for u in plain)))
        for name in _SENDING_LOGGERS:
            logging.getLogger(name).addFilter(self._filter)
        try:
            self.channels = [Channel.parse(url, n, policy) for n, url in enumerate(plain, 1)]
        except BaseException:
            self.close()
            raise
        self.retries = retries
        self.backoff_s = backoff_s
        self._sleep = sleep
        self.pool = pool or SENDS
        self.allowed = allowed  # the addresses a key's channel may reach (tests: loopback too)
        self._counter = None
        if metrics is not None:
            from ..metrics import Counter

            self._counter = Counter("trendlens_notify_total", "Push notifications by channel and outcome",
                                    ("channel", "outcome"), metrics.registry)

    @classmethod
    def from_settings(cls, settings: Settings, metrics: Metrics | None = None) -> Notifier:
        n = settings.notify
        return cls(n.notify_urls, retries=n.notify_retries, backoff_s=n.notify_backoff_s, metrics=metrics)

    def __bool__(self) -> bool:
        return bool(self.channels)

    def health(self) -> list[ChannelHealth]:
        return [c.health() for c in self.channels]

    def failing(self) -> list[str]:
        return [c.name for c in self.channels if c.consecutive_failures > 0]

    async def send(self, message: Message) -> list[Delivery]:
        """`message` to every channel; each channel's outcome, in the configured order."""
        return list(await asyncio.gather(*(self._deliver(c, message) for c in self.channels)))

    async def _deliver(self, channel: Channel, message: Message) -> Delivery:
        for attempt in range(1, self.retries + 2):
            ok = await self.pool.run(lambda: _send_once(channel, message, self.allowed))
            channel.record(ok)
            if self._counter is not None:
                self._counter.inc(channel.name, "ok" if ok else "failed")
            if ok:
                return Delivery(channel=channel.name, ok=True, attempts=attempt)
            if attempt <= self.retries:
                wait = self.backoff_s * 2 ** (attempt - 1)
                log.warning("notify %s: attempt %d failed; retrying in %.1fs", channel.name, attempt, wait)
                await self._sleep(wait)
        log.warning("notify %s: gave up after %d attempts", channel.name, self.retries + 1)
        return Delivery(channel=channel.name, ok=False, attempts=self.retries + 1)

    def close(self) -> None:
        for name in _SENDING_LOGGERS:
            logging.getLogger(name).removeFilter(self._filter)


def _send_once(channel: Channel, message: Message, allowed: Callable[[str], bool]) -> bool:
    if channel.public_only:
        with public_only(allowed):
            return _send(channel, message)
    return _send(channel, message)


def _send(channel: Channel, message: Message) -> bool:
    sender = apprise.Apprise()
    sender.add(channel.plugin)
    body, fmt = ((message.markdown, apprise.NotifyFormat.MARKDOWN) if channel.markdown
                 else (message.text, apprise.NotifyFormat.TEXT))
    return bool(sender.notify(body=body, title=message.title, body_format=fmt))
