"""MentraOS glasses end to end: the cloud's transcripts drive the live loop, captions go back as display_event."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import httpx
from websockets.asyncio.server import serve

from agent.api import create_app
from agent.runtime import Runtime
from agent.settings import Settings

SESSION = "user1@example.com-com.trendlens.captions"


@asynccontextmanager
async def glasses_session(settings: Settings, cloud: Callable[..., Awaitable[None]]) -> AsyncIterator[Runtime]:
    """The service over the synthetic snapshot, and the cloud stand-in `cloud` asking it for SESSION
    through the webhook, as the MentraOS cloud does when the wearer starts the app."""
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
        yield runtime


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
    async with glasses_session(settings, cloud) as runtime:
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


async def test_diarized_lines_are_recorded_with_their_speaker_and_the_wearers_left_out(tmp_path):
    inbox: asyncio.Queue[dict] = asyncio.Queue()
    lines = [("1", "哎你们昨晚几点睡的"), ("2", "那个机器人扭秧歌，手绢转得比人还溜"), ("1", "对对对就是那个")]

    async def cloud(ws):
        await inbox.put(json.loads(await ws.recv()))
        await ws.send(json.dumps({"type": "tpa_connection_ack",  # the wearer asked for other people's lines only
                                  "settings": [{"key": "caption_others_only", "type": "toggle", "value": True}]}))
        await inbox.put(json.loads(await ws.recv()))
        for start, (speaker, text) in enumerate(lines):
            await ws.send(json.dumps({"type": "data_stream", "streamType": "transcription:zh-CN",
                                      "data": {"type": "transcription", "text": text, "isFinal": True,
                                               "transcribeLanguage": "zh-CN", "speakerId": speaker,
                                               "startTime": start * 3000, "endTime": start * 3000 + 2000}}))
        async for raw in ws:
            await inbox.put(json.loads(raw))

    settings = Settings(data_dir=tmp_path, offline=True, api_keys="k", displays=["mentra"], mentra_api_key="secret",
                        mentra_languages=["zh-CN"])
    async with glasses_session(settings, cloud) as runtime:
        await asyncio.wait_for(inbox.get(), 10)
        await asyncio.wait_for(inbox.get(), 10)
        event = await asyncio.wait_for(inbox.get(), 20)
        assert event["type"] == "display_event" and "机器人" in json.dumps(event["layout"], ensure_ascii=False)
        for _ in range(50):
            history = runtime.sessions.history(SESSION, shown_only=False)
            if history:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # the wearer's last line would have been decided by now
        history = runtime.sessions.history(SESSION, shown_only=False)
        # only speaker 2's line was heard (the first voice, the wearer's, is left out), and its
        # decision names who said it
        assert [(h["decision"]["speaker"], h["decision"]["show"]) for h in history] == [("2", True)]
