"""POST captions as signed JSON to a URL, in the background, never late.

Design: `show()` only enqueues and returns at once; one worker task per target
delivers in order, retrying transient failures (transport errors, 408, 429,
5xx) with exponential backoff. Before every attempt the caption's TTL is
checked and an expired caption is dropped: on glasses a stale caption is worse
than none. The queue is bounded; when it is full the oldest entry is dropped,
since the newest caption is the one that matters.

Receivers verify `X-TrendLens-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`.
`X-TrendLens-Timestamp` is the send time (epoch seconds); freshness is also
inside the signed body as `created_at` + `ttl_ms`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from ..captions.caption import Caption

__all__ = ["WebhookDisplay", "WebhookStats", "sign_body"]

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-TrendLens-Signature"
TIMESTAMP_HEADER = "X-TrendLens-Timestamp"
_RETRY_STATUSES = frozenset({408, 425, 429})
_CLEAR_TTL_S = 30.0


def sign_body(secret: str | bytes, body: bytes) -> str:
    """The signature header value for `body`: "sha256=<hex>"."""
    key = secret.encode() if isinstance(secret, str) else secret
    return "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()


@dataclass(frozen=True, kw_only=True)
class WebhookStats:
    delivered: int
    dropped: int  # expired (before or between attempts) or pushed out of a full queue
    failed: int  # gave up: attempts exhausted or a non-retryable HTTP status
    queued: int


@dataclass(frozen=True, kw_only=True)
class _Delivery:
    body: bytes
    expires_at: float
    label: str


class WebhookDisplay:
    """A `Display` that POSTs each caption to `url`; see the module docstring for guarantees."""

    def __init__(
        self,
        url: str,
        *,
        client: httpx.AsyncClient,
        secret: str | bytes,
        name: str = "webhook",
        max_attempts: int = 4,
        backoff_s: float = 0.25,
        max_backoff_s: float = 4.0,
        attempt_timeout_s: float = 5.0,
        queue_size: int = 32,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.url = url
        self._client = client
        self._secret = secret
        self._max_attempts = max(1, max_attempts)
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._attempt_timeout_s = attempt_timeout_s
        self._clock = clock
        self._queue: asyncio.Queue[_Delivery] = asyncio.Queue(maxsize=queue_size)
        self._worker: asyncio.Task[None] | None = None
        self._closed = False
        self.delivered = self.dropped = self.failed = 0

    @property
    def stats(self) -> WebhookStats:
        return WebhookStats(
            delivered=self.delivered, dropped=self.dropped, failed=self.failed, queued=self._queue.qsize()
        )

    async def show(self, caption: Caption) -> bool:
        """Queue `caption` for delivery; False if it is already expired or the display is closed."""
        if self._closed or caption.expired(self._clock()):
            self.dropped += 1
            return False
        body = _dumps({"type": "caption", **caption.to_public()})
        self._enqueue(_Delivery(body=body, expires_at=caption.expires_at, label=caption.topic_id))
        return True

    async def clear(self, session_id: str | None = None) -> None:
        """Tell the receiver to take the caption down (`{"type": "clear", "session_id": ...}`)."""
        if self._closed:
            return
        body = _dumps({"type": "clear", "session_id": session_id, "created_at": self._clock()})
        self._enqueue(_Delivery(body=body, expires_at=self._clock() + _CLEAR_TTL_S, label="clear"))

    async def send_digest(self, digest: dict[str, Any], *, ttl_s: float = 3600.0) -> bool:
        """Queue a signed `{"type": "digest", ...}` delivery; a digest stays useful for an hour."""
        if self._closed:
            return False
        body = _dumps({"type": "digest", "created_at": self._clock(), "digest": digest})
        self._enqueue(_Delivery(body=body, expires_at=self._clock() + ttl_s, label="digest"))
        return True

    async def drain(self, timeout_s: float = 10.0) -> None:
        """Wait until everything queued so far is delivered, dropped or failed."""
        await asyncio.wait_for(self._queue.join(), timeout_s)

    async def aclose(self) -> None:
        """Stop the worker; deliveries still queued are counted as dropped."""
        self._closed = True
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        while not self._queue.empty():
            self._queue.get_nowait()
            self._queue.task_done()
            self.dropped += 1

    def _enqueue(self, delivery: _Delivery) -> None:
        if self._queue.full():
            self._queue.get_nowait()
            self._queue.task_done()
            self.dropped += 1
        self._queue.put_nowait(delivery)
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._run(), name=f"webhook-{self.name}")

    async def _run(self) -> None:
        while True:
            delivery = await self._queue.get()
            try:
                await self._deliver(delivery)
            except Exception:  # the worker must outlive one bad delivery
                log.exception("webhook %s: delivering %s crashed", self.name, delivery.label)
                self.failed += 1
            finally:
                self._queue.task_done()

    async def _deliver(self, delivery: _Delivery) -> None:
        signature = sign_body(self._secret, delivery.body)
        for attempt in range(self._max_attempts):
            remaining = delivery.expires_at - self._clock()
            if remaining <= 0:
                self.dropped += 1
                log.info("webhook %s: dropped expired %s", self.name, delivery.label)
                return
            headers = {
                "Content-Type": "application/json",
                SIGNATURE_HEADER: signature,
                TIMESTAMP_HEADER: str(int(self._clock())),
            }
            try:
                # Never wait past the TTL: an answer after it means a late caption.
                response = await self._client.post(
                    self.url, content=delivery.body, headers=headers,
                    timeout=min(self._attempt_timeout_s, remaining),
                )
            except httpx.HTTPError as exc:
                reason = f"{type(exc).__name__}: {exc}"
            else:
                if response.is_success:
                    self.delivered += 1
                    return
                if response.status_code < 500 and response.status_code not in _RETRY_STATUSES:
                    self.failed += 1
                    log.warning("webhook %s: HTTP %s, not retrying", self.name, response.status_code)
                    return
                reason = f"HTTP {response.status_code}"
            if attempt + 1 < self._max_attempts:
                delay = min(self._backoff_s * 2**attempt, self._max_backoff_s)
                log.info("webhook %s: %s; retry in %.2fs", self.name, reason, delay)
                await asyncio.sleep(delay)
        self.failed += 1
        log.warning(
            "webhook %s: giving up on %s after %d attempts", self.name, delivery.label, self._max_attempts
        )


def _dumps(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
