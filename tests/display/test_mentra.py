"""MentraApp against a local fake MentraOS cloud speaking the app protocol over a real WebSocket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import httpx
import pytest
from fastapi import FastAPI
from websockets.asyncio.server import ServerConnection, serve

from agent.captions import Caption
from agent.display import Display, MentraApp, MentraConfig

from .conftest import make_caption

SESSION = "user1-com.trendlens.app"
T = 3  # seconds; every await in these tests is bounded


@dataclass
class FakeCloud:
    """Accepts app connections; `script` decides what each connection does."""

    url: str = ""
    inbox: asyncio.Queue[dict] = field(default_factory=asyncio.Queue)
    connections: int = 0
    ack: bool = True
    close_first_with: int | None = None  # close the first connection with this code after subscribing
    transcript: dict | None = None

    async def handler(self, ws: ServerConnection) -> None:
        self.connections += 1
        init = json.loads(await ws.recv())
        await self.inbox.put(init)
        if not self.ack:
            await ws.send(json.dumps({"type": "tpa_connection_error", "message": "bad key", "code": "AUTH"}))
            await ws.wait_closed()
            return
        await ws.send(json.dumps({"type": "tpa_connection_ack", "settings": []}))
        await self.inbox.put(json.loads(await ws.recv()))  # subscription_update
        if self.close_first_with and self.connections == 1:
            await ws.close(self.close_first_with)
            return
        if self.transcript:
            stream = {"type": "data_stream", "streamType": "transcription", "data": self.transcript}
            await ws.send(json.dumps(stream))
        async for raw in ws:
            await self.inbox.put(json.loads(raw))

    async def next(self) -> dict:
        return await asyncio.wait_for(self.inbox.get(), T)


@pytest.fixture
async def cloud() -> AsyncIterator[FakeCloud]:
    fake = FakeCloud()
    async with serve(fake.handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        fake.url = f"ws://127.0.0.1:{port}/app-ws"
        yield fake


def _app(on_transcript=None, **cfg) -> MentraApp:
    config = MentraConfig(
        package_name="com.trendlens.app", api_key="k-123", reconnect_backoff_s=0.05, ws_proxy=None,
        **cfg,
    )
    return MentraApp(config, on_transcript)


async def _webhook(app: MentraApp, body: dict) -> httpx.Response:
    api = FastAPI()
    api.include_router(app.router)
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        return await asyncio.wait_for(client.post("/mentra/webhook", json=body), T)


def _session_request(url: str, key: str = "mentraOSWebsocketUrl") -> dict:
    return {"type": "session_request", "sessionId": SESSION, "userId": "user1",
            "timestamp": "2026-01-01T00:00:00Z", key: url}


async def test_transcript_in_caption_out(cloud: FakeCloud) -> None:
    cloud.transcript = {"type": "transcription", "text": "听说那个明星官宣结婚了", "isFinal": True,
                        "transcribeLanguage": "zh-CN", "startTime": 0, "endTime": 900}
    heard: list[tuple[str, str, bool]] = []

    async def on_transcript(session_id: str, text: str, is_final: bool) -> list[Caption]:
        heard.append((session_id, text, is_final))
        return [make_caption(session_id=session_id, ttl_ms=8000)]

    app = _app(on_transcript)
    response = await _webhook(app, _session_request(cloud.url))
    assert (response.status_code, response.json()) == (200, {"status": "success"})

    init = await cloud.next()
    assert {k: init[k] for k in ("type", "sessionId", "packageName", "apiKey")} == {
        "type": "tpa_connection_init", "sessionId": SESSION,
        "packageName": "com.trendlens.app", "apiKey": "k-123",
    }
    assert init["timestamp"]
    assert await cloud.next() == {
        "type": "subscription_update", "packageName": "com.trendlens.app", "sessionId": SESSION,
        "subscriptions": ["transcription:zh-CN", "transcription:en-US"],
    }
    event = await cloud.next()
    assert heard == [(SESSION, "听说那个明星官宣结婚了", True)]
    assert event["type"] == "display_event" and event["view"] == "main"
    assert event["sessionId"] == SESSION and event["packageName"] == "com.trendlens.app"
    assert event["layout"] == {
        "layoutType": "reference_card", "title": "某明星官宣结婚", "text": "微博#3 ↑ 1854万"
    }
    assert event["durationMs"] == 8000

    # Captions pushed from elsewhere (the Display side) reach the same glasses.
    assert isinstance(app, Display)
    assert await asyncio.wait_for(app.show(make_caption(title="另一个热搜", session_id=SESSION)), T)
    assert (await cloud.next())["layout"]["title"] == "另一个热搜"

    await asyncio.wait_for(app.clear(SESSION), T)
    assert (await cloud.next())["layout"] == {"layoutType": "text_wall", "text": ""}

    response = await _webhook(app, {"type": "stop_request", "sessionId": SESSION, "reason": "user_disabled"})
    assert response.status_code == 200 and app.sessions == {}
    await app.aclose()


async def test_legacy_augmentos_url_and_text_wall_layout(cloud: FakeCloud) -> None:
    app = _app(layout="text_wall")
    await _webhook(app, _session_request(cloud.url, key="augmentOSWebsocketUrl"))
    await cloud.next()
    await cloud.next()
    await app.wait_ready(SESSION, timeout_s=T)
    assert await app.show(make_caption(session_id=None))  # no session named: every session
    event = await cloud.next()
    assert event["layout"] == {"layoutType": "text_wall", "text": "某明星官宣结婚\n微博#3 ↑ 1854万"}
    await asyncio.wait_for(app.aclose(), T)


async def test_connection_error_stops_the_session(cloud: FakeCloud) -> None:
    cloud.ack = False
    app = _app()
    await _webhook(app, _session_request(cloud.url))
    assert (await cloud.next())["type"] == "tpa_connection_init"
    await _until(lambda: SESSION not in app.sessions)
    await asyncio.sleep(0.2)
    assert cloud.connections == 1 and cloud.inbox.empty()


async def test_abnormal_close_reconnects(cloud: FakeCloud) -> None:
    cloud.close_first_with = 1011
    app = _app()
    await _webhook(app, _session_request(cloud.url))
    kinds = [(await cloud.next())["type"] for _ in range(4)]
    assert kinds == ["tpa_connection_init", "subscription_update"] * 2
    assert cloud.connections == 2
    await asyncio.wait_for(app.aclose(), T)


async def test_normal_close_does_not_reconnect(cloud: FakeCloud) -> None:
    cloud.close_first_with = 1000
    app = _app()
    await _webhook(app, _session_request(cloud.url))
    await cloud.next()
    await cloud.next()
    await _until(lambda: SESSION not in app.sessions)
    await asyncio.sleep(0.2)
    assert cloud.connections == 1


async def test_gives_up_after_three_tries_when_cloud_is_unreachable() -> None:
    app = _app()
    await _webhook(app, _session_request("ws://127.0.0.1:9/app-ws"))
    await _until(lambda: SESSION not in app.sessions, timeout=T)  # 0.05+0.1+0.2 s of backoff


async def test_bad_webhook_bodies_are_rejected() -> None:
    app = _app()
    response = await _webhook(app, {"type": "session_request", "sessionId": SESSION})
    assert response.status_code == 400 and "WebsocketUrl" in response.json()["message"]
    response = await _webhook(app, {"type": "bogus"})
    assert response.status_code == 400 and response.json()["status"] == "error"
    assert app.sessions == {}


async def _until(condition: Callable[[], bool], timeout: float = T) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)
