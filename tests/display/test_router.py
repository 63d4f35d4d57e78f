"""The display router: captions to every display, a digest only to the displays that take one."""

from __future__ import annotations

import io
import json

import httpx

from agent.display import HudHub, StdoutDisplay, WebhookDisplay
from agent.display.router import DigestSink, DisplayRouter

from .conftest import Receiver, make_caption


async def test_captions_reach_every_display_and_digests_only_the_sinks(receiver: Receiver) -> None:
    out = io.StringIO()
    async with httpx.AsyncClient() as client:
        hook = WebhookDisplay(receiver.url, client=client, secret="s3cret", backoff_s=0.02)
        router = DisplayRouter({"hud": HudHub(), "stdout": StdoutDisplay(out), "webhook": hook})
        assert isinstance(hook, DigestSink) and not isinstance(router.get("hud"), DigestSink)
        caption = make_caption(session_id="default")
        assert await router.push(caption) == ["hud", "stdout", "webhook"]
        assert await router.push({"items": [{"title": "某明星官宣结婚"}]}) == ["webhook"]
        assert await router.push(caption, display="stdout") == ["stdout"]
        assert await router.push(caption, display="mentra") == []  # not configured here: nothing to do
        await hook.drain(timeout_s=3)
        await router.aclose()
    assert out.getvalue().count("某明星官宣结婚") == 2
    kinds = [json.loads(r.body)["type"] for r in receiver.requests]
    assert sorted(kinds) == ["caption", "digest"]
