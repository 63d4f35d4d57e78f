from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import socket
import time

import httpx

from agent.display import WebhookDisplay

from .conftest import Receiver, make_caption

SECRET = "s3cret"


def _display(url: str, client: httpx.AsyncClient, **kw) -> WebhookDisplay:
    opts = dict(secret=SECRET, backoff_s=0.02, max_backoff_s=0.1, attempt_timeout_s=1.0)
    return WebhookDisplay(url, client=client, **(opts | kw))


async def test_delivers_signed_caption(receiver: Receiver) -> None:
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client)
        caption = make_caption()
        assert await hook.show(caption) is True
        await hook.drain(timeout_s=3)
        await hook.aclose()
    [req] = receiver.requests
    expected = "sha256=" + hmac.new(SECRET.encode(), req.body, hashlib.sha256).hexdigest()
    assert req.headers["x-trendlens-signature"] == expected
    assert abs(int(req.headers["x-trendlens-timestamp"]) - time.time()) < 5
    payload = json.loads(req.body)
    assert payload["type"] == "caption"
    assert payload["text"] == caption.text and payload["topic_id"] == "weibo:abc"
    assert (hook.stats.delivered, hook.stats.dropped, hook.stats.failed) == (1, 0, 0)


async def test_retries_after_503(receiver: Receiver) -> None:
    receiver.statuses = [503, 503]
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client)
        await hook.show(make_caption())
        await hook.drain(timeout_s=3)
        await hook.aclose()
    assert len(receiver.requests) == 3
    assert receiver.requests[0].body == receiver.requests[2].body
    assert (hook.delivered, hook.dropped, hook.failed) == (1, 0, 0)


async def test_client_error_is_not_retried(receiver: Receiver) -> None:
    receiver.statuses = [400]
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client)
        await hook.show(make_caption())
        await hook.drain(timeout_s=3)
        await hook.aclose()
    assert len(receiver.requests) == 1
    assert (hook.delivered, hook.failed) == (0, 1)


async def test_expired_caption_dropped_while_receiver_is_down() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    async with httpx.AsyncClient() as client:
        hook = _display(f"http://127.0.0.1:{port}/hook", client, max_attempts=1000)
        await hook.show(make_caption(ttl_ms=300))
        await hook.drain(timeout_s=3)
        await hook.aclose()
    assert (hook.delivered, hook.dropped, hook.failed) == (0, 1, 0)


async def test_nothing_is_delivered_after_the_ttl(receiver: Receiver) -> None:
    receiver.default = 503  # down until long after the caption expired
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client, max_attempts=1000)
        caption = make_caption(ttl_ms=300)
        await hook.show(caption)
        await hook.drain(timeout_s=3)
        receiver.default = 200
        await asyncio.sleep(0.2)
        await hook.aclose()
    assert receiver.requests, "it did try while the caption was fresh"
    assert all(req.at < caption.expires_at for req in receiver.requests)
    assert (hook.delivered, hook.dropped) == (0, 1)


async def test_already_expired_caption_is_refused() -> None:
    async with httpx.AsyncClient() as client:
        hook = _display("http://127.0.0.1:9/never", client)
        assert await hook.show(make_caption(ttl_ms=1000, now=time.time() - 5)) is False
        await hook.aclose()
    assert hook.dropped == 1


async def test_show_returns_at_once_while_the_receiver_is_slow(receiver: Receiver) -> None:
    receiver.delay_s = 0.5
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client)
        start = time.perf_counter()
        for i in range(3):
            assert await hook.show(make_caption(topic_id=f"t{i}"))
        assert time.perf_counter() - start < 0.05
        await asyncio.wait_for(receiver.got_one.wait(), 2)
        await hook.aclose()
    assert hook.stats.queued == 0


async def test_full_queue_drops_the_oldest(receiver: Receiver) -> None:
    receiver.delay_s = 0.2
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client, queue_size=2)
        for i in range(5):
            await hook.show(make_caption(topic_id=f"t{i}"))
        await hook.drain(timeout_s=3)
        await hook.aclose()
    delivered = [json.loads(r.body)["topic_id"] for r in receiver.requests]
    assert delivered[-2:] == ["t3", "t4"]
    assert hook.delivered == len(delivered) and hook.dropped == 5 - len(delivered)


async def test_clear_is_sent_signed(receiver: Receiver) -> None:
    async with httpx.AsyncClient() as client:
        hook = _display(receiver.url, client)
        await hook.clear("u1-app")
        await hook.drain(timeout_s=3)
        await hook.aclose()
    [req] = receiver.requests
    payload = json.loads(req.body)
    assert (payload["type"], payload["session_id"]) == ("clear", "u1-app")
    assert req.headers["x-trendlens-signature"].startswith("sha256=")


async def test_daily_digest_workflow_pushes_a_signed_digest(receiver: Receiver, tmp_path) -> None:
    from agent.resources import workflows_dir
    from agent.runtime import Runtime
    from agent.settings import Settings

    settings = Settings(data_dir=tmp_path, offline=True, displays=["webhook"], webhook_url=receiver.url,
                        webhook_secret=SECRET)
    runtime = Runtime.build(settings, embedder=None)
    await runtime.collector.cycle()
    assert runtime.engine is not None and runtime.engine.folder == workflows_dir()
    record = await runtime.engine.run("daily_digest")
    assert record.status == "ok", record.error
    assert record.steps[-1].detail == "pushed to webhook"
    await runtime.router.displays["webhook"].drain(timeout_s=5)
    await runtime.aclose()
    [req] = receiver.requests
    expected = "sha256=" + hmac.new(SECRET.encode(), req.body, hashlib.sha256).hexdigest()
    assert req.headers["x-trendlens-signature"] == expected
    payload = json.loads(req.body)
    assert payload["type"] == "digest" and payload["digest"]["items"]
    assert (tmp_path / "digests").is_dir()
