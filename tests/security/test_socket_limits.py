"""A hostile client on the stream socket, against a real `serve`: floods are cut off, huge frames refused.

The socket draws on the buckets HTTP draws on: the key's, and the session's (so a session token
seen in a HUD URL floods no more than a key could).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from agent.api.throttle import MAX_FRAME_BYTES

from ..servers import Instance, start_instance

KEYS = ("k-flood", "k-size", "k-session")
BURST = 5  # with a slow refill, so a burst test sees exactly this many answers


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    instance = start_instance(Path(tmp_path_factory.mktemp("socket-limits")), api_keys=",".join(KEYS),
                              env={"TRENDLENS_RATE_LIMIT_PER_S": "0.05", "TRENDLENS_RATE_LIMIT_BURST": str(BURST)})
    try:
        yield instance
    finally:
        instance.stop()


def _session(serve: Instance, key: str) -> dict:
    r = httpx.post(serve.url + "/v1/sessions", json={}, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _stream_url(serve: Instance, session: dict, *, token: bool = False) -> str:
    url = serve.url.replace("http://", "ws://") + f"/v1/sessions/{session['id']}/stream"
    return url + f"?token={session['token']}" if token else url


async def _frames_until_closed(ws: websockets.ClientConnection) -> tuple[list[dict], int | None]:
    frames: list[dict] = []
    try:
        async with asyncio.timeout(15):
            async for raw in ws:
                frames.append(json.loads(raw))
    except ConnectionClosed:
        pass
    except TimeoutError:
        return frames, None  # still open: the server kept answering
    return frames, ws.close_code


def _utterance(text: str) -> str:
    return json.dumps({"type": "utterance", "text": text})


async def test_a_burst_past_the_key_s_limit_gets_an_error_frame_then_close_1008(serve: Instance) -> None:
    session = _session(serve, "k-flood")  # the creation took one token of the key's bucket
    headers = {"Authorization": "Bearer k-flood"}
    async with websockets.connect(_stream_url(serve, session), additional_headers=headers, open_timeout=10) as ws:
        for i in range(300):
            try:
                await ws.send(_utterance(f"今天天气不错第{i}句"))
            except ConnectionClosed:
                break
        frames, code = await _frames_until_closed(ws)
    assert code == 1008
    assert sum(f["type"] == "decision" for f in frames) == BURST - 1
    assert frames[-1]["type"] == "error" and "rate limit exceeded" in frames[-1]["message"]


async def test_the_socket_and_http_draw_on_one_session_bucket(serve: Instance) -> None:
    session = _session(serve, "k-session")  # the key's bucket keeps BURST - 1
    # the session's own token has no key bucket of its own: the session's bucket stops it
    async with websockets.connect(_stream_url(serve, session, token=True), open_timeout=10) as ws:
        for _ in range(BURST + 1):
            await ws.send(_utterance("你好"))
        frames, code = await _frames_until_closed(ws)
    assert code == 1008
    assert sum(f["type"] == "decision" for f in frames) == BURST and frames[-1]["type"] == "error"
    # and HTTP, with a key that still has room, finds that same bucket empty
    over = httpx.post(serve.url + f"/v1/sessions/{session['id']}/utterances", json={"text": "你好"},
                      headers={"Authorization": "Bearer k-session"}, timeout=10)
    assert over.status_code == 429, over.text
    assert over.json()["error"]["message"] == "rate limit exceeded for this session"
    assert int(over.headers["Retry-After"]) >= 1


async def test_a_frame_over_the_limit_is_refused_with_1009_before_it_is_read(serve: Instance) -> None:
    session = _session(serve, "k-size")
    headers = {"Authorization": "Bearer k-size"}
    longest = json.dumps({"type": "utterance", "text": "梗" * 2000})  # every character escaped: 12 kB
    assert len(longest) < MAX_FRAME_BYTES < 64 * 1024
    async with websockets.connect(_stream_url(serve, session), additional_headers=headers, open_timeout=10,
                                  max_size=None) as ws:
        await ws.send(longest)
        answer = json.loads(await ws.recv())
        while answer["type"] not in ("decision", "error"):
            answer = json.loads(await ws.recv())
        assert answer["type"] == "decision"
        await ws.send(_utterance("梗" * 1_000_000))  # a few megabytes
        frames, code = await _frames_until_closed(ws)
    assert code == 1009 and not any(f["type"] == "decision" for f in frames)
