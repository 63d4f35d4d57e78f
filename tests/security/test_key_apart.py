"""Secrets kept apart from what they guard: the keyed hash's key outside the store, /metrics behind
a key, and a revoked key's open sockets closed."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from pathlib import Path

import httpx
import pytest
import websockets
from fastapi.testclient import TestClient
from pydantic import ValidationError
from websockets.exceptions import ConnectionClosed

from agent.api import create_app
from agent.api.security import KeyRing
from agent.api.stream_socket import REVOKED_CLOSE
from agent.runtime import Runtime
from agent.settings import Settings
from agent.store.keys import hash_key, revoke_key
from harness.apps import KEY, LiveServer, make_runtime

HMAC_KEY = "9f1c" * 16  # 64 hex characters, as `openssl rand -hex 32` writes one
CLIENT = "a-client-key-for-metrics-123"
SCRAPER = "a-scraper-token-456"


def _utterance(client: TestClient, text: str) -> None:
    auth = {"Authorization": f"Bearer {KEY}"}
    s = client.post("/v1/sessions", json={"profile": "even-g1"}, headers=auth).json()
    assert client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": text}, headers=auth).status_code == 200


@pytest.mark.parametrize("how", ["env", "file"])
def test_the_keyed_hash_uses_the_operator_s_key_and_the_store_keeps_none(tmp_path: Path, how: str) -> None:
    data = tmp_path / "data"
    secret_file = tmp_path / "secrets" / "utterance-hmac"
    secret_file.parent.mkdir()
    secret_file.write_text(HMAC_KEY + "\n", encoding="utf-8")
    given = {"utterance_hmac_key": HMAC_KEY} if how == "env" else {"utterance_hmac_key_file": secret_file}
    runtime = make_runtime(data, **given)
    # a store that made its own key before the operator set one: that key goes
    runtime.sessions.utterance_hash("before")  # type: ignore[attr-defined]
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as client:
        _utterance(client, "今年春晚的机器人扭秧歌你们看了吗")
        store = runtime.store
        assert store.query("SELECT name FROM install_secrets WHERE name = 'utterance_hmac'") == []
        (stored,) = store.query("SELECT utterance_hmac FROM decisions")
        expected = hmac.new(HMAC_KEY.encode(), "今年春晚的机器人扭秧歌你们看了吗".encode(), hashlib.sha256).hexdigest()
        assert stored[0] == expected


def test_the_key_file_may_not_sit_in_the_data_dir_and_a_short_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="inside the data dir"):
        Settings(data_dir=tmp_path / "data", utterance_hmac_key_file=tmp_path / "data" / "hmac.key")
    with pytest.raises(ValidationError, match="at least 32 characters"):
        Settings(data_dir=tmp_path / "data", utterance_hmac_key="short")


def test_metrics_need_the_metrics_token_or_an_admin_key(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path / "data", api_keys=f"{KEY},{CLIENT}", metrics_token=SCRAPER)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as client:
        assert client.get("/metrics").status_code == 401
        r = client.get("/metrics", headers={"Authorization": f"Bearer {CLIENT}"})
        assert r.status_code == 403 and "TRENDLENS_METRICS_TOKEN" in r.json()["error"]["message"]
        for token in (SCRAPER, KEY):  # the scraper's token; an admin key
            r = client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200 and "trendlens_" in r.text
        # the scraper's token is no API key
        assert client.get("/v1/topics", headers={"Authorization": f"Bearer {SCRAPER}"}).status_code == 401


def test_a_revoked_key_s_open_socket_closes_within_the_recheck_interval(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as server:
        keys = app.state.keys
        keys.known_recheck_s = 1.0
        asyncio.run(_drive_and_revoke(server, runtime, keys, keys.create("wearer-app")))


async def _drive_and_revoke(server: LiveServer, runtime: Runtime, keys: KeyRing, stored: str) -> None:
    auth = {"Authorization": f"Bearer {stored}"}
    async with httpx.AsyncClient(base_url=server.url, headers=auth) as client:
        session = (await client.post("/v1/sessions", json={"profile": "even-g1"})).json()
    url = "ws" + server.url.removeprefix("http") + f"/v1/sessions/{session['id']}/stream"
    async with websockets.connect(url, additional_headers=auth, open_timeout=5) as ws:
        await ws.send('{"type": "utterance", "text": "hello"}')
        while (await _json(ws))["type"] != "decision":  # the socket works with the stored key
            pass
        await asyncio.to_thread(revoke_key, runtime.store, hash_key(stored)[:12])
        started = asyncio.get_running_loop().time()
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(3):
                while True:
                    await ws.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == REVOKED_CLOSE[0]
        assert asyncio.get_running_loop().time() - started <= keys.known_recheck_s + 0.5


async def _json(ws: websockets.ClientConnection) -> dict:
    return json.loads(await asyncio.wait_for(ws.recv(), 5))
