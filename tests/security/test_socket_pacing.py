"""The limits refuse traffic, not wearers: at the shipped defaults, 40 wearers on one operator key keep
their sockets, a socket sending 150 frames at once gets error frames and is answered again after the wait,
and a frame that waited too long for its turn is dropped with the same error."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import numpy as np
import pytest
import websockets

from agent.api import create_app, stream_socket
from agent.ranking import HashEmbedder
from harness.apps import KEY as TEST_KEY
from harness.apps import LiveServer, make_runtime
from harness.servers import Instance, start_instance

KEY = "k-operator"
HEADERS = {"Authorization": f"Bearer {KEY}"}
# its own copy: a test elsewhere may hand the shared AUTH to a client that adds handshake headers to it
AUTH = {"Authorization": f"Bearer {TEST_KEY}"}
LINES = ["今天天气不错", "春晚的机器人扭秧歌你们看了吗", "哪吒2票房破百亿了", "我们晚上吃饺子吧"]


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    instance = start_instance(Path(tmp_path_factory.mktemp("pacing")), api_keys=KEY)  # the default limits
    try:
        yield instance
    finally:
        instance.stop()


def _session(url: str) -> str:
    r = httpx.post(url + "/v1/sessions", json={}, headers=HEADERS, timeout=10)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _stream(url: str, session_id: str) -> str:
    return url.replace("http://", "ws://") + f"/v1/sessions/{session_id}/stream"


def _utterance(text: str) -> str:
    return json.dumps({"type": "utterance", "text": text})


async def _answers(ws: websockets.ClientConnection, count: int, timeout_s: float = 30) -> list[dict]:
    """The next `count` answers (decision or error frames), skipping captions and warnings."""
    out: list[dict] = []
    async with asyncio.timeout(timeout_s):
        while len(out) < count:
            frame = json.loads(await ws.recv())
            if frame["type"] in ("decision", "error"):
                out.append(frame)
    return out


async def test_forty_wearers_on_one_key_two_lines_a_second_keep_every_socket_and_every_answer(
        serve: Instance) -> None:
    sessions = [_session(serve.url) for _ in range(40)]
    sockets = [await websockets.connect(_stream(serve.url, s), additional_headers=HEADERS, open_timeout=10)
               for s in sessions]
    rounds = 6  # three seconds at two lines a second each: 80 lines a second on one key
    try:
        start = time.monotonic()
        for r in range(rounds):
            await asyncio.gather(*(ws.send(_utterance(f"{LINES[(r + i) % len(LINES)]} 第{r}句"))
                                   for i, ws in enumerate(sockets)))
            await asyncio.sleep(max(0.0, start + (r + 1) * 0.5 - time.monotonic()))
        answers = await asyncio.gather(*(_answers(ws, rounds, timeout_s=60) for ws in sockets))
        assert all(ws.close_code is None for ws in sockets), "a wearer's socket was closed"
        refused = [a for per in answers for a in per if a["type"] == "error"]
        assert not refused, refused[:3]
    finally:
        for ws in sockets:
            await ws.close()


async def test_150_frames_at_once_get_error_frames_not_a_close_and_health_answers_meanwhile(
        serve: Instance) -> None:
    session = _session(serve.url)
    async with websockets.connect(_stream(serve.url, session), additional_headers=HEADERS, open_timeout=10) as ws, \
            httpx.AsyncClient(timeout=10) as http:
        for i in range(150):
            await ws.send(_utterance(f"{LINES[i % len(LINES)]} 第{i}句"))
        health_started = time.monotonic()
        health = await http.get(serve.url + "/healthz")
        health_s = time.monotonic() - health_started
        answers = await _answers(ws, 150)
        assert ws.close_code is None
        decisions = [a for a in answers if a["type"] == "decision"]
        refused = [a for a in answers if a["type"] == "error"]
        assert decisions and refused and len(decisions) + len(refused) == 150
        assert all(a["code"] == "rate_limited" and a["retry_after_ms"] >= 1 for a in refused)
        assert health.status_code == 200 and health_s < 1.0, health_s
        # after the wait it asks for, the same socket is answered again
        await asyncio.sleep(max(a["retry_after_ms"] for a in refused[-5:]) / 1000 + 0.2)
        await ws.send(_utterance("我们晚上吃饺子吧"))
        assert (await _answers(ws, 1))[0]["type"] == "decision"


SLOW = "slowly-spoken-line"


class SlowEmbedder(HashEmbedder):
    """A line naming SLOW takes a second to encode: the frames behind it wait for their turn."""

    def encode(self, texts: Sequence[str], *, role: str = "query") -> np.ndarray:  # type: ignore[override]
        if any(SLOW in t for t in texts):
            time.sleep(1.0)
        return super().encode(texts, role=role)  # type: ignore[arg-type]


@pytest.fixture
def slow_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LiveServer]:
    monkeypatch.setattr(stream_socket, "MAX_FRAME_WAIT_S", 0.5)
    runtime = make_runtime(tmp_path / "data", embedder=SlowEmbedder())
    with LiveServer(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as server:
        yield server


async def test_a_frame_that_waited_past_the_bound_is_dropped_with_the_same_error(slow_server: LiveServer) -> None:
    r = await asyncio.to_thread(httpx.post, slow_server.url + "/v1/sessions", json={}, headers=AUTH, timeout=10)
    async with websockets.connect(_stream(slow_server.url, r.json()["id"]), additional_headers=AUTH,
                                  open_timeout=10) as ws:
        for text in (f"{SLOW} 春晚的机器人扭秧歌你们看了吗", "哪吒2票房破百亿了", "我们晚上吃饺子吧"):
            await ws.send(_utterance(text))
        first, *behind = await _answers(ws, 3)
        assert first["type"] == "decision"
        assert [a["type"] for a in behind] == ["error", "error"]
        assert all(a["code"] == "rate_limited" and "dropped after waiting" in a["message"] for a in behind)
        await ws.send(_utterance("今天天气不错"))  # still open, answered at once now
        assert (await _answers(ws, 1))[0]["type"] == "decision"
        assert ws.close_code is None
