"""MentraOS glasses end to end: the cloud's transcripts drive the live loop, captions go back as display_event."""

from __future__ import annotations

import asyncio
import json

import httpx
from websockets.asyncio.server import serve

from agent.api import create_app
from agent.runtime import Runtime
from agent.settings import Settings

SESSION = "user1@example.com-com.trendlens.captions"


async def test_transcripts_from_a_fake_cloud_come_back_as_captions(tmp_path):
    inbox: asyncio.Queue[dict] = asyncio.Queue()

    async def cloud(ws):  # a local stand-in for the MentraOS cloud's app WebSocket
        await inbox.put(json.loads(await ws.recv()))  # tpa_connection_init
        await ws.send(json.dumps({"type": "tpa_connection_ack", "settings": []}))
        await inbox.put(json.loads(await ws.recv()))  # subscription_update
        # small talk first (a bare "did you watch the gala" may already caption a gala topic), then the mention
        for text in ("哎你们昨晚几点睡的", "那个机器人扭秧歌，手绢转得比人还溜"):
            await ws.send(json.dumps({"type": "data_stream", "streamType": "transcription",
                                      "data": {"type": "transcription", "text": text, "isFinal": True,
                                               "transcribeLanguage": "zh-CN"}}))
        async for raw in ws:
            await inbox.put(json.loads(raw))

    settings = Settings(data_dir=tmp_path, offline=True, api_keys="k", displays=["mentra"], mentra_api_key="secret")
    runtime = Runtime.build(settings)
    await runtime.collector.cycle()
    app = create_app(settings, runtime=runtime, schedule=False, announce_key=False)
    async with serve(cloud, "127.0.0.1", 0) as server, app.router.lifespan_context(app):
        port = server.sockets[0].getsockname()[1]
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://app") as client:
            r = await client.post("/mentra/webhook", json={
                "type": "session_request", "sessionId": SESSION, "userId": "user1@example.com",
                "timestamp": "2026-01-28T12:00:00Z", "mentraOSWebsocketUrl": f"ws://127.0.0.1:{port}/app-ws"})
            assert r.status_code == 200 and r.json() == {"status": "success"}
        init = await asyncio.wait_for(inbox.get(), 10)
        assert init["type"] == "tpa_connection_init" and init["apiKey"] == "secret" and init["sessionId"] == SESSION
        assert (await asyncio.wait_for(inbox.get(), 10))["type"] == "subscription_update"
        event = await asyncio.wait_for(inbox.get(), 20)
        assert event["type"] == "display_event" and event["sessionId"] == SESSION
        shown = json.dumps(event["layout"], ensure_ascii=False)
        assert "机器人" in shown and event["durationMs"] > 0
        for _ in range(50):  # the decision is stored just after the caption went out
            history = runtime.sessions.history(SESSION)
            if history:
                break
            await asyncio.sleep(0.05)
        assert history and history[-1]["decision"]["show"]
        assert history[-1]["decision"]["chars"] > 0 and history[-1]["decision"]["utterance"] is None  # words not kept
