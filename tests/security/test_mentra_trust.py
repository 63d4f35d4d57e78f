"""The MentraOS webhook is unauthenticated: what a forged call can and cannot do to a wearer's session.

A local stand-in for the MentraOS cloud speaks the app protocol over a real WebSocket; the
webhook is called through the app's own router, as the cloud calls it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Literal

import httpx
import pytest
from fastapi import FastAPI
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from agent.display import MentraApp, MentraConfig
from agent.display.mentra import DEFAULT_ALLOWED_HOSTS, host_allowed

from ..display.conftest import make_caption

SESSION = "wearer@example.com-com.trendlens.app"
T = 3  # seconds; every wait here is bounded


@dataclass
class Cloud:
    """One fake cloud endpoint: acks our key, refuses it, or never answers."""

    answer: Literal["ack", "refuse", "silent"] = "ack"
    url: str = ""
    inbox: asyncio.Queue[dict] = field(default_factory=asyncio.Queue)
    sockets: list[ServerConnection] = field(default_factory=list)

    async def handler(self, ws: ServerConnection) -> None:
        self.sockets.append(ws)
        await self.inbox.put(json.loads(await ws.recv()))  # tpa_connection_init
        if self.answer == "silent":
            await ws.wait_closed()
            return
        if self.answer == "refuse":
            await ws.send(json.dumps({"type": "tpa_connection_error", "message": "unknown session", "code": "AUTH"}))
            await ws.wait_closed()
            return
        await ws.send(json.dumps({"type": "tpa_connection_ack", "settings": []}))
        async for raw in ws:
            await self.inbox.put(json.loads(raw))

    async def next(self) -> dict:
        return await asyncio.wait_for(self.inbox.get(), T)


@pytest.fixture
async def clouds() -> AsyncIterator[dict[str, Cloud]]:
    made = {name: Cloud(answer=name) for name in ("ack", "refuse", "silent")}  # type: ignore[arg-type]
    async with serve(made["ack"].handler, "127.0.0.1", 0) as a, serve(made["refuse"].handler, "127.0.0.1", 0) as r, \
            serve(made["silent"].handler, "127.0.0.1", 0) as s:
        for cloud, server in zip(made.values(), (a, r, s), strict=True):
            cloud.url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/app-ws"
        yield made


def _app(**cfg) -> MentraApp:
    config = MentraConfig(package_name="com.trendlens.app", api_key="k-123", reconnect_backoff_s=0.05,
                          ws_proxy=None, **cfg)
    return MentraApp(config)


async def _webhook(app: MentraApp, body: dict) -> httpx.Response:
    api = FastAPI()
    api.include_router(app.router)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://app") as client:
        return await asyncio.wait_for(client.post("/webhook", json=body), T)


def _session_request(url: str, session_id: str = SESSION) -> dict:
    return {"type": "session_request", "sessionId": session_id, "userId": "wearer@example.com",
            "timestamp": "2026-01-01T00:00:00Z", "mentraOSWebsocketUrl": url}


async def _live(app: MentraApp, cloud: Cloud) -> None:
    assert (await _webhook(app, _session_request(cloud.url))).status_code == 200
    assert (await cloud.next())["type"] == "tpa_connection_init"
    assert (await cloud.next())["type"] == "subscription_update"
    await app.wait_ready(SESSION, T)


async def _shown_on(app: MentraApp, cloud: Cloud, title: str) -> None:
    assert await asyncio.wait_for(app.display.show(make_caption(title=title, session_id=SESSION)), T)
    assert (await cloud.next())["layout"]["title"] == title


async def test_a_forged_stop_request_does_not_end_a_live_session(clouds: dict[str, Cloud]) -> None:
    app, cloud = _app(), clouds["ack"]
    try:
        await _live(app, cloud)
        stop = await _webhook(app, {"type": "stop_request", "sessionId": SESSION, "reason": "user_disabled"})
        assert stop.status_code == 200 and stop.json() == {"status": "success"}
        await asyncio.sleep(0.3)
        # the wearer still sees captions: the socket the cloud acknowledged is open
        assert cloud.sockets[0].close_code is None
        await _shown_on(app, cloud, "还在显示")
        # the stop takes effect when the cloud itself closes the socket, even with a code that
        # would otherwise mean "reconnect"
        await cloud.sockets[0].close(1011)
        for _ in range(100):
            if SESSION not in app.sessions:
                break
            await asyncio.sleep(0.02)
        assert SESSION not in app.sessions
        await asyncio.sleep(0.3)
        assert len(cloud.sockets) == 1, "reconnected after a requested stop"
    finally:
        await app.aclose()


@pytest.mark.parametrize("forged", ["refuse", "silent"])
async def test_a_repeated_session_request_replaces_the_live_connection_only_once_the_cloud_acks(
        clouds: dict[str, Cloud], forged: str) -> None:
    app, live = _app(ack_timeout_s=0.5, reconnect_tries=0), clouds["ack"]
    try:
        await _live(app, live)
        first = app.sessions[SESSION]
        # a forged request naming an allowed host where our key is refused, or never answered
        assert (await _webhook(app, _session_request(clouds[forged].url))).status_code == 200
        assert (await clouds[forged].next())["type"] == "tpa_connection_init"
        await asyncio.sleep(0.8)  # past the ack timeout: the candidate is gone
        assert app.sessions[SESSION] is first and not app.candidates
        assert live.sockets[0].close_code is None
        await _shown_on(app, live, "原来的连接")
        # the cloud itself moves the session (it acks our key there): now the new socket takes over
        moved = Cloud()
        async with serve(moved.handler, "127.0.0.1", 0) as server:
            moved.url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/app-ws"
            assert (await _webhook(app, _session_request(moved.url))).status_code == 200
            assert (await moved.next())["type"] == "tpa_connection_init"
            assert (await moved.next())["type"] == "subscription_update"
            for _ in range(100):
                if live.sockets[0].close_code is not None:
                    break
                await asyncio.sleep(0.02)
            assert live.sockets[0].close_code is not None, "the replaced connection stayed open"
            await _shown_on(app, moved, "新的连接")
            await app.aclose()
    finally:
        await app.aclose()


def test_plain_ws_only_to_loopback() -> None:
    assert host_allowed("wss://prod.mentra.glass/app-ws", DEFAULT_ALLOWED_HOSTS)
    assert host_allowed("ws://127.0.0.1:8002/app-ws", DEFAULT_ALLOWED_HOSTS)
    assert host_allowed("ws://localhost:8002/app-ws", DEFAULT_ALLOWED_HOSTS)
    assert host_allowed("ws://[::1]:8002/app-ws", DEFAULT_ALLOWED_HOSTS)
    # the key would cross the network in clear text
    assert not host_allowed("ws://prod.mentra.glass/app-ws", DEFAULT_ALLOWED_HOSTS)
    assert not host_allowed("ws://augmentos.cloud/app-ws", DEFAULT_ALLOWED_HOSTS)


async def test_a_plain_ws_url_to_the_cloud_is_refused_before_connecting() -> None:
    app = _app()
    r = await _webhook(app, _session_request("ws://api.mentra.glass/app-ws"))
    assert r.status_code == 403 and "wss://" in r.json()["message"]
    assert not app.sessions and not app.candidates
    await app.aclose()


async def test_session_tasks_started_by_webhooks_are_bounded(clouds: dict[str, Cloud]) -> None:
    app, silent = _app(max_sessions=3, max_candidates=2, ack_timeout_s=T), clouds["silent"]
    try:
        # one session id: two candidates wait for the cloud's ack, the third is refused
        for expected in (200, 200, 429):
            r = await _webhook(app, _session_request(silent.url))
            assert r.status_code == expected, r.text
        assert "wait for the cloud's ack" in r.json()["message"] and r.headers["Retry-After"]
        # in all: three connections, the fourth (another id) is refused with a clear message
        assert (await _webhook(app, _session_request(silent.url, "other-com.trendlens.app"))).status_code == 200
        r = await _webhook(app, _session_request(silent.url, "third-com.trendlens.app"))
        assert r.status_code == 429 and r.json() == {"status": "error",
                                                     "message": "too many MentraOS connections (3); try again shortly"}
        assert sum(len(c) for c in app.candidates.values()) == 3
    finally:
        await app.aclose()


@dataclass
class Redirector:
    """A cloud host that answers the WebSocket handshake with a redirect to `location`."""

    location: str = ""

    def process_request(self, connection: ServerConnection, request: Request) -> Response:
        response = connection.respond(302, "moved\n")
        response.headers["Location"] = self.location
        return response


async def test_a_redirect_to_another_host_never_receives_the_api_key(clouds: dict[str, Cloud]) -> None:
    # the other host is on the allowlist too (localhost): still not the host the session request named
    other = Cloud(answer="ack")
    redirector = Redirector()
    async with serve(other.handler, "localhost", 0) as elsewhere, \
            serve(Cloud().handler, "127.0.0.1", 0, process_request=redirector.process_request) as cloud:
        redirector.location = f"ws://localhost:{elsewhere.sockets[0].getsockname()[1]}/app-ws"
        app = _app(reconnect_tries=1)
        try:
            url = f"ws://127.0.0.1:{cloud.sockets[0].getsockname()[1]}/app-ws"
            assert (await _webhook(app, _session_request(url))).status_code == 200
            async with asyncio.timeout(T):  # gave up: every try was redirected away
                while app.candidates or app.sessions:
                    await asyncio.sleep(0.02)
            assert other.inbox.empty() and not other.sockets
            assert not app.sessions
        finally:
            await app.aclose()


async def test_a_redirect_within_the_named_host_is_followed() -> None:
    moved = Cloud(answer="ack")
    redirector = Redirector()

    def route(connection: ServerConnection, request: Request) -> Response | None:
        # the endpoint moved to another path on the same origin
        return None if request.path == "/app-ws-v2" else redirector.process_request(connection, request)

    async with serve(moved.handler, "127.0.0.1", 0, process_request=route) as cloud:
        url = f"ws://127.0.0.1:{cloud.sockets[0].getsockname()[1]}/app-ws"
        redirector.location = url + "-v2"
        app = _app()
        try:
            assert (await _webhook(app, _session_request(url))).status_code == 200
            init = await moved.next()
            assert init["type"] == "tpa_connection_init" and init["apiKey"] == "k-123"
            await app.wait_ready(SESSION, T)
        finally:
            await app.aclose()


async def test_a_flood_of_slow_webhook_calls_is_refused_at_once_past_the_bound() -> None:
    app = _app(max_webhooks=2, webhook_read_timeout_s=T)
    api = FastAPI()
    api.include_router(app.router)
    release = asyncio.Event()
    body = json.dumps(_session_request("ws://127.0.0.1:9/app-ws")).encode()

    async def slow_body():
        yield body[:10]
        await release.wait()  # a caller that never finishes sending
        yield body[10:]

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://app") as client:
        held = [asyncio.create_task(client.post("/webhook", content=slow_body())) for _ in range(2)]
        await asyncio.sleep(0.1)
        started = asyncio.get_running_loop().time()
        r = await asyncio.wait_for(client.post("/webhook", json=_session_request("ws://127.0.0.1:9/app-ws")), T)
        assert r.status_code == 503 and r.headers["Retry-After"] == "1", r.text
        assert r.json()["message"] == "2 webhook calls are already being handled; try again shortly"
        assert asyncio.get_running_loop().time() - started < 1
        release.set()
        assert [(await t).status_code for t in held] == [200, 200]
    await app.aclose()


async def test_a_webhook_body_that_never_arrives_frees_its_slot() -> None:
    app = _app(max_webhooks=1, webhook_read_timeout_s=0.2)
    api = FastAPI()
    api.include_router(app.router)

    async def stalled():
        yield b'{"type": "session_request",'
        await asyncio.Event().wait()

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://app") as client:
        r = await asyncio.wait_for(client.post("/webhook", content=stalled()), T)
        assert r.status_code == 408 and "did not arrive within 0.2 s" in r.json()["message"]
        r = await asyncio.wait_for(client.post("/webhook", content=b"x" * (65 * 1024)), T)
        assert r.status_code == 413  # the slot is free again; an oversized body is not read whole
    await app.aclose()


async def test_a_client_chosen_session_id_reaches_the_log_as_one_bounded_line(caplog) -> None:
    forged = "wearer-com.app\n2026-01-01 00:00:00 ERROR trendlens: key leaked\r\x1b[2J\u202e" + "x" * 5000
    app = _app(max_sessions=0)
    with caplog.at_level("INFO", logger="agent.display.mentra"):
        assert (await _webhook(app, _session_request("ws://evil.example/app-ws", forged))).status_code == 403
        assert (await _webhook(app, _session_request("ws://127.0.0.1:9/app-ws", forged))).status_code == 429
        assert (await _webhook(app, {"type": "stop_request", "sessionId": forged})).status_code == 200
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 3
    for line in lines:
        assert "\n" not in line and "\r" not in line and "\x1b" not in line and "\u202e" not in line, line
        assert len(line) < 400 and "\\n2026-01-01" in line and "(+" in line
    await app.aclose()
