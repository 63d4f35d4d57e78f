from __future__ import annotations

import asyncio
import time

from agent.display import HudHub

from .conftest import make_caption


async def _next(sub) -> dict | None:
    return await asyncio.wait_for(sub.get(), 1)


async def test_broadcast_reaches_only_that_sessions_viewers() -> None:
    hub = HudHub()
    a1, a2, b = hub.subscribe("a"), hub.subscribe("a"), hub.subscribe("b")
    caption = make_caption(session_id="a")
    assert await hub.show(caption) is True
    for sub in (a1, a2):
        message = await _next(sub)
        assert message == {"type": "caption", **caption.to_public()}
    assert b._queue.empty()
    await hub.aclose()


async def test_new_viewer_sees_the_last_caption() -> None:
    hub = HudHub()
    await hub.show(make_caption(topic_id="old", session_id="s"))
    await hub.show(make_caption(topic_id="new", session_id="s"))
    async with hub.subscribe("s") as sub:
        assert (await _next(sub))["topic_id"] == "new"
        assert hub.subscriber_count("s") == 1
    assert hub.subscriber_count("s") == 0


async def test_expired_last_caption_is_not_replayed() -> None:
    hub = HudHub()
    await hub.show(make_caption(ttl_ms=1000, now=time.time() - 0.9))
    await asyncio.sleep(0.15)
    sub = hub.subscribe()
    assert sub._queue.empty() and hub.last_caption() is None


async def test_slow_viewer_keeps_only_the_newest_messages() -> None:
    hub = HudHub(queue_size=2)
    slow = hub.subscribe()
    for i in range(10):
        await hub.show(make_caption(topic_id=f"t{i}"))
    assert slow.dropped == 8
    assert [(await _next(slow))["topic_id"] for _ in range(2)] == ["t8", "t9"]


async def test_clear_and_close() -> None:
    hub = HudHub()
    sub = hub.subscribe("s")
    await hub.show(make_caption(session_id="s"))
    await hub.clear("s")
    assert hub.last_caption("s") is None
    await hub.aclose()
    messages = [m async for m in sub]
    assert [m["type"] for m in messages] == ["caption", "clear"]
    assert await _next(sub) is None
