"""Real clients against a real server on 127.0.0.1: the official openai package, websockets, Chromium."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from harness.apps import AUTH, KEY
from tests.api.conftest import HOSTILE
from tests.browser import chromium_page, needs_chromium


def test_openai_client_non_streaming_and_streaming(live_server):
    import openai
    client = openai.OpenAI(base_url=live_server.url + "/v1", api_key=KEY, max_retries=0, timeout=30)
    assert [m.id for m in client.models.list()] == ["trendlens"]
    reply = client.chat.completions.create(model="trendlens",
                                           messages=[{"role": "user", "content": "最近有什么关于春晚的热梗?"}])
    text = reply.choices[0].message.content
    assert reply.choices[0].finish_reason == "stop" and "春晚" in text and "https://" in text
    stream = client.chat.completions.create(model="trendlens", stream=True,
                                            messages=[{"role": "user", "content": "what's trending in tech today?"}])
    pieces = [c.choices[0].delta.content or "" for c in stream if c.choices]
    streamed = "".join(pieces)
    assert len(pieces) > 2 and streamed.startswith("Trending now:") and "Hacker News" in streamed
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=live_server.url + "/v1", api_key="wrong", max_retries=0).models.list()


def test_websocket_client_gets_captions(live_server):
    import websockets
    s = httpx.post(live_server.url + "/v1/sessions", headers=AUTH, json={}).json()

    async def talk() -> list[dict]:
        url = live_server.url.replace("http", "ws") + f"/v1/sessions/{s['id']}/stream"
        async with websockets.connect(url, additional_headers=AUTH, open_timeout=10) as ws:
            await ws.send(json.dumps({"type": "utterance", "text": "春晚机器人扭秧歌太好笑了", "final": True}))
            frames = []
            while not frames or frames[-1]["type"] != "decision":
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            return frames

    frames = asyncio.run(talk())
    assert [f["type"] for f in frames] == ["caption", "decision"]
    assert frames[0]["lines"][0] == "春晚机器人扭秧歌" and frames[0]["text"].startswith("春晚机器人扭秧歌\n")
    assert frames[-1]["decision"]["show"] and frames[-1]["decision"]["reason"] == "shown"




@needs_chromium
def test_hud_page_in_a_real_browser_shows_captions_and_escapes_titles(live_server):
    # a hostile topic the wearer's conversation will be about
    httpx.post(live_server.url + "/v1/topics", headers=AUTH, json=[
        {"id": "xss", "title": f"{HOSTILE} zebra quokka marathon", "source": "custom", "heat": 1e9}])
    s = httpx.post(live_server.url + "/v1/sessions", headers=AUTH, json={"profile": "hud-web"}).json()
    with chromium_page() as page:
        alerts: list[str] = []
        page.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
        page.goto(s["hud_url"].replace("http://testserver", live_server.url))
        page.wait_for_selector("#status:text('live')", timeout=15000)
        r = httpx.post(live_server.url + f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                       json={"text": "did you hear about the zebra quokka marathon", "final": True})
        assert r.json()["captions"], r.json()
        page.wait_for_selector("#lines div", timeout=10000)
        shown = page.inner_text("#lines")
        assert HOSTILE in shown  # rendered as text...
        assert page.locator("#lines img").count() == 0 and not alerts  # ...never as markup
