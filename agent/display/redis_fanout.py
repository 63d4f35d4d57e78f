"""`RedisFanout`: captions shared by every instance through Redis pub/sub.

Behind a load balancer, the HUD page of a session may hold its WebSocket on
another instance than the one that heard the utterance. Each instance keeps its
own in-process `HudHub` for the viewers connected to it; `show` and `clear`
publish to one Redis channel, and every instance (this one included) feeds what
it receives into its local hub. Delivery to the deciding instance goes through
Redis too, so every viewer sees the same order of messages.

An erasure goes the same way (`erase`): every instance ends the session's feeds, which closes
its sockets there, and forgets what it held of it. The erasing instance does all that at once,
before publishing, so its own sockets close even while Redis is unreachable.

Pub/sub is at-most-once: a caption published while an instance is reconnecting
is not replayed. A caption lives a few seconds, so a missed one is not worth a
stream's bookkeeping; the glasses show the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from agent.store.redis_options import REDIS_HEALTH_CHECK_S, redis_options

from ..captions.caption import Caption
from .base import DEFAULT_SESSION
from .hud import HudHub, HudSubscription

__all__ = ["CHANNEL", "RedisFanout"]

log = logging.getLogger(__name__)

CHANNEL = "trendlens:captions"


class RedisFanout:
    """A `CaptionFanout` over Redis; `start()` must have run before captions are expected."""

    name = "hud"

    def __init__(self, url: str, *, queue_size: int = 8, clock: Callable[[], float] = time.time,
                 channel: str = CHANNEL) -> None:
        import redis.asyncio as aioredis

        self._redis = aioredis.from_url(url, **redis_options())
        self._channel = channel
        self._clock = clock
        self.local = HudHub(queue_size=queue_size, clock=clock)
        self._listener: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None

    async def start(self) -> None:
        """Subscribe to the channel; returns once Redis has confirmed the subscription."""
        if self._listener is not None:
            return
        self._ready = asyncio.Event()
        self._listener = asyncio.create_task(self._listen(self._ready), name="redis-caption-fanout")
        waiter = asyncio.ensure_future(self._ready.wait())
        await asyncio.wait({waiter, self._listener}, return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            waiter.cancel()
            self._listener.result()  # raises why it could not subscribe

    async def _listen(self, ready: asyncio.Event) -> None:
        from redis.exceptions import RedisError

        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._channel)
                ready.set()
                while True:
                    # a bounded wait: each return checks the idle connection's health (a PING)
                    message = await pubsub.get_message(timeout=REDIS_HEALTH_CHECK_S)
                    if message is not None and message.get("type") == "message":
                        await self._deliver(message["data"])
            except (RedisError, OSError) as exc:
                if not ready.is_set():
                    raise  # at start: the service should not come up deaf to other instances
                # Redis restarted or the link dropped: subscribe again on a fresh connection
                log.warning("caption fan-out lost Redis (%s); resubscribing", exc)
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _deliver(self, data: str) -> None:
        try:
            payload: dict[str, Any] = json.loads(data)
            if payload.get("type") == "clear":
                await self.local.clear(payload.get("session_id"))
            elif payload.get("type") == "erase":
                await self.local.erase(str(payload["session_id"]))
            else:
                await self.local.show(Caption.from_public(payload["caption"]))
        except (ValueError, KeyError, TypeError) as exc:  # one bad message must not stop the feed
            log.warning("caption fan-out: ignored a malformed message: %s", exc)

    # -- CaptionFanout -----------------------------------------------------------
    def subscribe(self, session_id: str | None = None) -> HudSubscription:
        return self.local.subscribe(session_id)

    def subscriber_count(self, session_id: str | None = None) -> int:
        return self.local.subscriber_count(session_id)

    def last_caption(self, session_id: str | None = None) -> Caption | None:
        return self.local.last_caption(session_id)

    async def show(self, caption: Caption) -> bool:
        if caption.expired(self._clock()):
            return False
        return await self._publish({"type": "caption", "caption": caption.to_public()})

    async def clear(self, session_id: str | None = None) -> None:
        await self._publish({"type": "clear", "session_id": session_id or DEFAULT_SESSION})

    async def erase(self, session_id: str) -> None:
        await self.local.erase(session_id)  # here now; the copy from Redis repeats it harmlessly
        # the rows and the shared state are gone already; another instance's sockets of the session
        # then stay open, recording nothing, until their client closes them
        await self._publish({"type": "erase", "session_id": session_id},
                            missed=f"other instances not told that session {session_id} was erased")

    def on_erase(self, listener: Callable[[str], None]) -> None:
        self.local.on_erase(listener)

    def was_erased(self, session_id: str) -> bool:
        return self.local.was_erased(session_id)

    async def _publish(self, payload: dict[str, Any], *, missed: str = "caption not shown on HUDs") -> bool:
        from redis.exceptions import RedisError

        try:
            await self._redis.publish(self._channel, json.dumps(payload, ensure_ascii=False))
        except (RedisError, OSError) as exc:  # the decision and caption are recorded; only the HUD misses it
            log.warning("caption fan-out: Redis unreachable, %s: %s", missed, exc)
            return False
        return True

    async def aclose(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        await self.local.aclose()
        await self._redis.aclose()

