"""An erase ends what is running too: the session's sockets close, an utterance in flight leaves nothing,
the encoder forgets its words, and erasing twice is never a server error."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from agent.api import create_app
from agent.api.erase import ERASED_CLOSE
from agent.api.routes.hud import HUD_PROTOCOL
from agent.ranking import HashEmbedder
from harness.apps import KEY, LiveServer, make_runtime

PASSWORD = "zebra-quokka-4711"
SPOKEN = f"the wifi password is {PASSWORD} by the way, 春晚的机器人扭秧歌你们看了吗"
SLOW = "slowly-spoken-line"
# its own copy: a test elsewhere may hand the shared AUTH to a client that adds handshake headers to it
AUTH = {"Authorization": f"Bearer {KEY}"}


class SlowEmbedder(HashEmbedder):
    """Holds a query that names SLOW for a while: an utterance still in flight when the erase comes."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()

    def encode(self, texts: Sequence[str], *, role: str = "query") -> np.ndarray:  # type: ignore[override]
        if any(SLOW in t for t in texts):
            self.started.set()
            time.sleep(1.5)
        return super().encode(texts, role=role)  # type: ignore[arg-type]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[LiveServer, SlowEmbedder]]:
    embedder = SlowEmbedder()
    runtime = make_runtime(tmp_path / "data", embedder=embedder, keep_utterances_days=7)
    with LiveServer(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as server:
        yield server, embedder


def _session(url: str) -> dict:
    r = httpx.post(url + "/v1/sessions", json={"profile": "even-g1"}, headers=AUTH, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _ws(url: str) -> str:
    return "ws" + url.removeprefix("http")


def _encoder_texts(server: LiveServer) -> list[str]:
    ranker = server.server.config.app.state.runtime.index.ranker
    return list(ranker.encoder._cache)


async def test_the_erase_closes_the_stream_and_hud_sockets_with_4410_within_3_s(served) -> None:
    server, _ = served
    s = _session(server.url)
    stream = await websockets.connect(_ws(server.url) + f"/v1/sessions/{s['id']}/stream",
                                      additional_headers=AUTH, open_timeout=10)
    hud = await websockets.connect(_ws(server.url) + f"/hud/{s['id']}/ws", open_timeout=10,
                                   subprotocols=[HUD_PROTOCOL, f"token.{s['token']}"])  # type: ignore[list-item]
    await stream.send(json.dumps({"type": "utterance", "text": SPOKEN}))
    while json.loads(await asyncio.wait_for(stream.recv(), 10))["type"] != "decision":
        pass
    assert any(PASSWORD in t for t in _encoder_texts(server))  # what the erase must take back

    started = time.monotonic()
    erased = await asyncio.to_thread(httpx.delete, server.url + f"/v1/sessions/{s['id']}", headers=AUTH, timeout=10)
    assert erased.status_code == 204
    for ws in (stream, hud):
        with pytest.raises(ConnectionClosed):
            async with asyncio.timeout(3):
                while True:
                    await ws.recv()
        assert (ws.close_code, ws.close_reason) == ERASED_CLOSE
    assert time.monotonic() - started < 3
    assert not any(PASSWORD in t for t in _encoder_texts(server)), "the encoder's cache kept the words"
    # and the socket cannot be opened again: refused at the handshake, as an unknown session is
    with pytest.raises(InvalidStatus):
        await websockets.connect(_ws(server.url) + f"/v1/sessions/{s['id']}/stream", additional_headers=AUTH,
                                 open_timeout=10)


def test_an_utterance_in_flight_when_the_session_is_erased_leaves_nothing(served) -> None:
    server, embedder = served
    s = _session(server.url)
    runtime = server.server.config.app.state.runtime
    with ThreadPoolExecutor(1) as pool:
        said = pool.submit(httpx.post, server.url + f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                           json={"text": f"{SLOW} {PASSWORD} 春晚的机器人扭秧歌"}, timeout=30)
        assert embedder.started.wait(10)
        assert httpx.delete(server.url + f"/v1/sessions/{s['id']}", headers=AUTH, timeout=10).status_code == 204
        answer = said.result()
    assert answer.status_code == 404, answer.text  # answered like an unknown session, nothing decided
    time.sleep(2)  # the model call the erase could not stop ends meanwhile
    assert runtime.store.query("SELECT COUNT(*) FROM decisions WHERE session_id = ?", (s["id"],))[0][0] == 0
    assert runtime.hud.last_caption(s["id"]) is None
    assert not any(PASSWORD in t for t in _encoder_texts(server))
    assert runtime.sessions.peek(s["id"]) is None


def test_erasing_twice_or_at_once_answers_204_or_404_never_a_server_error(served) -> None:
    server, _ = served
    for concurrent in (1, 4):
        s = _session(server.url)
        httpx.post(server.url + f"/v1/sessions/{s['id']}/utterances", json={"text": SPOKEN}, headers=AUTH,
                   timeout=10)
        url = server.url + f"/v1/sessions/{s['id']}"
        with ThreadPoolExecutor(concurrent) as pool:
            codes = list(pool.map(lambda u: httpx.delete(u, headers=AUTH, timeout=10).status_code, [url] * concurrent))
        codes.append(httpx.delete(url, headers=AUTH, timeout=10).status_code)
        assert set(codes) <= {204, 404} and codes.count(204) >= 1 and codes[-1] == 404, codes
