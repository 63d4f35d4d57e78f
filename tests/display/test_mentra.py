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
from agent.display.mentra import Heard, host_allowed

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
    model_name: str | None = None  # capabilities.modelName in the ack
    streams: list[dict] = field(default_factory=list)  # data_stream messages sent after subscribing
    capabilities: dict | None = None  # the ack's whole `capabilities`, when a test gives one
    settings: list[dict] = field(default_factory=list)  # the ack's app settings
    dashboard: list[dict] = field(default_factory=list)  # display events for the dashboard view

    async def handler(self, ws: ServerConnection) -> None:
        self.connections += 1
        init = json.loads(await ws.recv())
        await self.inbox.put(init)
        if not self.ack:
            await ws.send(json.dumps({"type": "tpa_connection_error", "message": "bad key", "code": "AUTH"}))
            await ws.wait_closed()
            return
        ack: dict = {"type": "tpa_connection_ack", "settings": self.settings}
        if self.model_name:
            ack["capabilities"] = {"modelName": self.model_name, "hasDisplay": True}
        if self.capabilities is not None:
            ack["capabilities"] = self.capabilities
        await ws.send(json.dumps(ack))
        await self.inbox.put(json.loads(await ws.recv()))  # subscription_update
        if self.close_first_with and self.connections == 1:
            await ws.close(self.close_first_with)
            return
        if self.transcript:
            stream = {"type": "data_stream", "streamType": "transcription", "data": self.transcript}
            await ws.send(json.dumps(stream))
        for message in self.streams:
            await ws.send(json.dumps(message))
        async for raw in ws:
            message = json.loads(raw)
            if message.get("type") == "display_event" and message.get("view") == "dashboard":
                self.dashboard.append(message)  # kept apart: the tests read the main view in order
            else:
                await self.inbox.put(message)

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


async def _webhook(app: MentraApp, body: dict, path: str = "/webhook") -> httpx.Response:
    api = FastAPI()
    api.include_router(app.router)
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url="http://app") as client:
        return await asyncio.wait_for(client.post(path, json=body), T)


def _session_request(url: str, key: str = "mentraOSWebsocketUrl") -> dict:
    return {"type": "session_request", "sessionId": SESSION, "userId": "user1",
            "timestamp": "2026-01-01T00:00:00Z", key: url}


async def test_transcript_in_caption_out(cloud: FakeCloud) -> None:
    cloud.transcript = {"type": "transcription", "text": "听说那个明星官宣结婚了", "isFinal": True,
                        "transcribeLanguage": "zh-CN", "startTime": 0, "endTime": 900}
    heard: list[tuple[str, str, bool]] = []

    async def on_transcript(h: Heard) -> list[Caption]:
        heard.append((h.session_id, h.text, h.is_final))
        return [make_caption(session_id=h.session_id, ttl_ms=8000)]

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
    assert isinstance(app.display, Display) and not isinstance(app, Display)
    assert await asyncio.wait_for(app.display.show(make_caption(title="另一个热搜", session_id=SESSION)), T)
    assert (await cloud.next())["layout"]["title"] == "另一个热搜"

    await asyncio.wait_for(app.display.clear(SESSION), T)
    assert (await cloud.next())["layout"] == {"layoutType": "text_wall", "text": ""}

    # a stop_request is answered, but the session ends only when the cloud closes its socket
    response = await _webhook(app, {"type": "stop_request", "sessionId": SESSION, "reason": "user_disabled"})
    assert response.status_code == 200 and SESSION in app.sessions
    await app.aclose()


async def test_legacy_augmentos_url_and_text_wall_layout(cloud: FakeCloud) -> None:
    app = _app(layout="text_wall")
    await _webhook(app, _session_request(cloud.url, key="augmentOSWebsocketUrl"))
    await cloud.next()
    await cloud.next()
    await app.wait_ready(SESSION, timeout_s=T)
    assert await app.display.show(make_caption(session_id=None))  # no session named: every session
    event = await cloud.next()
    assert event["layout"] == {"layoutType": "text_wall", "text": "某明星官宣结婚\n微博#3 ↑ 1854万"}
    await asyncio.wait_for(app.aclose(), T)


async def test_connection_error_stops_the_session(cloud: FakeCloud) -> None:
    cloud.ack = False
    app = _app()
    await _webhook(app, _session_request(cloud.url))
    assert (await cloud.next())["type"] == "tpa_connection_init"
    await _until(lambda: SESSION not in app.candidates)
    await asyncio.sleep(0.2)
    assert cloud.connections == 1 and cloud.inbox.empty() and SESSION not in app.sessions


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
    (session,) = app.candidates[SESSION]  # never acknowledged, so never the session's connection
    await _until(lambda: SESSION not in app.candidates, timeout=T)  # 0.05+0.1+0.2 s of backoff
    assert session.connects == 1 + 3  # the first attempt, then three reconnect tries


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


@pytest.mark.parametrize("path", ["/webhook", "/api/_mentraos/webhook", "/mentra/webhook"])
async def test_every_webhook_path_the_cloud_calls_starts_a_session(cloud: FakeCloud, path: str) -> None:
    app = _app()
    response = await _webhook(app, _session_request(cloud.url), path=path)
    assert (response.status_code, response.json()) == (200, {"status": "success"})
    assert (await cloud.next())["type"] == "tpa_connection_init"
    await asyncio.wait_for(app.aclose(), T)


async def test_unknown_websocket_host_is_refused_and_gets_no_key(cloud: FakeCloud) -> None:
    app = _app(allowed_hosts=("*.mentra.glass",))  # loopback not allowed here
    response = await _webhook(app, _session_request(cloud.url))
    assert response.status_code == 403 and "host" in response.json()["message"]
    await asyncio.sleep(0.2)
    assert app.sessions == {} and cloud.connections == 0 and cloud.inbox.empty()


def test_host_allowlist_matches_hosts_not_prefixes() -> None:
    allowed = ("*.mentra.glass", "augmentos.cloud", "127.0.0.1")
    assert host_allowed("wss://prod.mentra.glass/app-ws", allowed)
    assert host_allowed("wss://augmentos.cloud/app-ws", allowed)
    assert host_allowed("ws://127.0.0.1:8002/app-ws", allowed)
    assert not host_allowed("wss://mentra.glass.evil.example/app-ws", allowed)
    assert not host_allowed("wss://evilmentra.glass/app-ws", allowed)
    assert not host_allowed("wss://prod.augmentos.cloud/app-ws", allowed)
    assert not host_allowed("https://prod.mentra.glass/app-ws", allowed)
    assert not host_allowed("not a url", allowed)


def _transcript(text: str, lang: str, start: int = 0, end: int = 900, final: bool = True) -> dict:
    return {"type": "data_stream", "streamType": f"transcription:{lang}",
            "data": {"type": "transcription", "text": text, "isFinal": final, "transcribeLanguage": lang,
                     "startTime": start, "endTime": end}}


async def _heard_from(cloud: FakeCloud, count: int, **cfg) -> list[Heard]:
    heard: list[Heard] = []

    async def on_transcript(h: Heard) -> list[Caption]:
        heard.append(h)
        return []

    app = _app(on_transcript, merge_window_s=0.3, **cfg)
    await _webhook(app, _session_request(cloud.url))
    await app.wait_ready(SESSION, timeout_s=T)
    await _until(lambda: len(heard) >= count)
    await asyncio.sleep(0.5)  # nothing more arrives after the window
    await asyncio.wait_for(app.aclose(), T)
    return heard


async def test_one_decision_per_utterance_across_language_streams(cloud: FakeCloud) -> None:
    cloud.streams = [
        # Chinese speech: the English recogniser's copy is Latin garbage, whichever comes first
        _transcript("Ting shuo na ge ming xing", "en-US", 0, 1200),
        _transcript("听说那个明星官宣结婚了", "zh-CN", 0, 1250),
        # English speech: the Chinese recogniser writes it mostly in Latin; the en copy wins
        _transcript("did you watch the super bowl", "en-US", 3000, 4500),
        _transcript("did you 我 the super bowl", "zh-CN", 3000, 4400),
    ]
    heard = await _heard_from(cloud, 2)
    assert [(h.text, h.language, h.is_final) for h in heard] == [
        ("听说那个明星官宣结婚了", "zh-CN", True),
        ("did you watch the super bowl", "en-US", True),
    ]


async def test_a_lone_copy_is_decided_after_the_window(cloud: FakeCloud) -> None:
    cloud.streams = [_transcript("明天见", "zh-CN")]
    assert [h.text for h in await _heard_from(cloud, 1)] == ["明天见"]


async def test_partials_come_only_from_the_leading_language(cloud: FakeCloud) -> None:
    cloud.streams = [
        _transcript("听说", "zh-CN", final=False),
        _transcript("Ting", "en-US", final=False),
    ]
    heard = await _heard_from(cloud, 1)
    assert [(h.text, h.is_final) for h in heard] == [("听说", False)]


@pytest.mark.parametrize(("model", "profile"), [
    ("Even Realities G1", "even-g1"), ("Vuzix Z100", "vuzix-z100"), ("Mentra Live", "mentra-generic"),
    (None, "mentra-generic"),
])
async def test_profile_comes_from_the_glasses_named_in_the_ack(cloud: FakeCloud, model, profile) -> None:
    cloud.model_name = model
    cloud.streams = [_transcript("明天见", "zh-CN")]
    heard = await _heard_from(cloud, 1, languages=("zh-CN",))
    assert heard[0].profile == profile


def _five_line_caption() -> Caption:
    return make_caption(title="一个很长很长的热搜标题会被折成好几行显示在眼镜上面让人看个明白" * 2, profile="even-g1",
                        summary="这是一段摘要，说明这个热搜讲的是什么事情，以及为什么大家都在讨论它" * 2,
                        session_id=SESSION)


async def test_g1_gets_a_text_wall_with_every_line(cloud: FakeCloud) -> None:
    cloud.model_name = "Even Realities G1"
    app = _app()
    await _webhook(app, _session_request(cloud.url))
    await app.wait_ready(SESSION, timeout_s=T)
    caption = _five_line_caption()
    assert len(caption.lines) == 5
    assert await app.display.show(caption)
    event = await _display_event(cloud)
    assert event["layout"] == {"layoutType": "text_wall", "text": "\n".join(caption.lines)}
    await asyncio.wait_for(app.aclose(), T)


async def test_reference_card_only_when_title_blank_line_and_body_fit(cloud: FakeCloud) -> None:
    cloud.model_name = "Vuzix Z100"  # 5 lines: title + blank + at most 3 body lines
    app = _app()
    await _webhook(app, _session_request(cloud.url))
    await app.wait_ready(SESSION, timeout_s=T)
    assert await app.display.show(make_caption(session_id=SESSION))  # 2 lines: a card
    assert (await _display_event(cloud))["layout"]["layoutType"] == "reference_card"
    caption = _five_line_caption()
    assert await app.display.show(caption)  # 5 lines would lose its end on a card: two walls, no blank line
    assert (await _display_event(cloud))["layout"] == {"layoutType": "double_text_wall",
                                                       "topText": "\n".join(caption.lines[:-1]),
                                                       "bottomText": caption.lines[-1]}
    await asyncio.wait_for(app.aclose(), T)


async def _display_event(cloud: FakeCloud) -> dict:
    while (message := await cloud.next())["type"] != "display_event":
        pass
    return message


def test_unknown_glyphs_measure_16px_on_the_g1() -> None:
    from agent.captions.widths import g1_pixel_width

    assert g1_pixel_width("ß") == 16 and g1_pixel_width("ø") == 16  # not in the G1 font table: its fallback
    assert g1_pixel_width("É") == g1_pixel_width("E") == 10  # accented Latin: the plain letter's width
