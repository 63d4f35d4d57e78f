"""A hostile client on the stream socket, against a real `serve`: a flood is refused frame by frame with
error frames while the socket stays open, huge frames are refused, and the service keeps answering.

The socket draws on the buckets HTTP draws on: the key's, and the session's (smaller: one key may
serve many wearers); the key's scales with its live sessions.
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
from harness.servers import Instance, start_instance

KEYS = ("k-size", "k-session")
BURST = 8  # per key, with a slow refill
SESSION_BURST = 3  # per session: smaller, as one key may serve many wearers


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    instance = start_instance(Path(tmp_path_factory.mktemp("socket-limits")), api_keys=",".join(KEYS),
                              env={"TRENDLENS_RATE_LIMIT_PER_S": "0.05", "TRENDLENS_RATE_LIMIT_BURST": str(BURST),
                                   "TRENDLENS_SESSION_RATE_LIMIT_PER_S": "0.05",
                                   "TRENDLENS_SESSION_RATE_LIMIT_BURST": str(SESSION_BURST)})
    try:
        yield instance
    finally:
        instance.stop()


def _session(serve: Instance, key: str) -> dict:
    r = httpx.post(serve.url + "/v1/sessions", json={}, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _stream_url(serve: Instance, session: dict) -> str:
    return serve.url.replace("http://", "ws://") + f"/v1/sessions/{session['id']}/stream"


async def _frames_until_closed(ws: websockets.ClientConnection, *, quiet_s: float = 15
                               ) -> tuple[list[dict], int | None]:
    """Every frame until the server closes the socket (its close code) or says nothing for `quiet_s` (None)."""
    frames: list[dict] = []
    try:
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), quiet_s)))
    except ConnectionClosed:
        return frames, ws.close_code
    except TimeoutError:
        return frames, None  # still open: the server answered everything


def _utterance(text: str) -> str:
    return json.dumps({"type": "utterance", "text": text})


async def _say(ws: websockets.ClientConnection, text: str) -> str:
    """Send one utterance; the type of the frame that answers it (decision or error)."""
    await ws.send(_utterance(text))
    while (frame := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] not in ("decision", "error"):
        pass
    return str(frame["type"])


async def test_a_flooded_session_gets_error_frames_keeps_its_socket_and_http_finds_the_same_bucket_empty(
        serve: Instance) -> None:
    session = _session(serve, "k-session")
    headers = {"Authorization": "Bearer k-session"}
    async with websockets.connect(_stream_url(serve, session), additional_headers=headers, open_timeout=10) as ws:
        for i in range(300):
            await ws.send(_utterance(f"今天天气不错第{i}句"))
        frames, code = await _frames_until_closed(ws, quiet_s=3)
        assert code is None, "the socket was closed"  # one frame too many costs the frame, not the feed
        assert sum(f["type"] == "decision" for f in frames) == SESSION_BURST
        refused = [f for f in frames if f["type"] == "error"]
        assert len(refused) == 300 - SESSION_BURST
        assert all(f["code"] == "rate_limited" and f["retry_after_ms"] >= 1 and "retry in" in f["message"]
                   for f in refused)
        assert await _say(ws, "还在吗") == "error"  # still open, still limited: answered, not cut off
    # HTTP, with a key that still has room, draws on that same session bucket
    over = httpx.post(serve.url + f"/v1/sessions/{session['id']}/utterances", json={"text": "你好"},
                      headers=headers, timeout=10)
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
