"""A session is its owner's alone: another key cannot see, drive or erase it, nor learn it exists;
the HUD token only watches."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from starlette.websockets import WebSocketDisconnect

from harness.apps import AUTH, LiveServer

from .conftest import OTHER_AUTH, app_client

SPOKEN = "今年春晚的机器人扭秧歌你们看了吗"


def _session(client, auth=AUTH) -> dict:
    r = client.post("/v1/sessions", json={"profile": "even-g1"}, headers=auth)
    assert r.status_code == 201, r.text
    return r.json()


def _socket_code(client, path: str, **kwargs) -> int:
    with pytest.raises(WebSocketDisconnect) as exc, client.websocket_connect(path, **kwargs) as ws:
        ws.receive_json()
    return exc.value.code


def test_another_key_gets_404_on_every_session_route_like_an_unknown_id(two_tenants):
    mine = _session(two_tenants)
    assert two_tenants.post(f"/v1/sessions/{mine['id']}/utterances", json={"text": SPOKEN},
                            headers=AUTH).json()["captions"]
    for sid in (mine["id"], "s_no_such_session"):
        said = two_tenants.post(f"/v1/sessions/{sid}/utterances", json={"text": "hijack"}, headers=OTHER_AUTH)
        read = two_tenants.get(f"/v1/sessions/{sid}/captions?all=true", headers=OTHER_AUTH)
        erased = two_tenants.delete(f"/v1/sessions/{sid}", headers=OTHER_AUTH)
        assert [r.status_code for r in (said, read, erased)] == [404, 404, 404]
        assert said.json()["error"]["message"] == f"no session {sid!r}"  # word for word what an unknown id gets
        assert _socket_code(two_tenants, f"/v1/sessions/{sid}/stream", headers=dict(OTHER_AUTH)) == 4404
    # the owner still has it all, and nothing the other key sent reached it
    history = two_tenants.get(f"/v1/sessions/{mine['id']}/captions?all=true", headers=AUTH).json()["items"]
    assert len(history) == 1 and history[0]["decision"]["reason"] == "shown"


def test_keys_made_with_trendlens_keys_own_their_sessions_too(two_tenants):
    stored = two_tenants.app.state.keys.create("tenant-b")
    stored_auth = {"Authorization": f"Bearer {stored}"}
    theirs = _session(two_tenants, stored_auth)
    assert two_tenants.get(f"/v1/sessions/{theirs['id']}/captions", headers=stored_auth).status_code == 200
    assert two_tenants.get(f"/v1/sessions/{theirs['id']}/captions", headers=AUTH).status_code == 404
    mine = _session(two_tenants)
    assert two_tenants.get(f"/v1/sessions/{mine['id']}/captions", headers=stored_auth).status_code == 404


def test_the_hud_token_watches_but_never_drives(two_tenants):
    s = _session(two_tenants)
    token_auth = {"Authorization": f"Bearer {s['token']}"}
    assert two_tenants.post(f"/v1/sessions/{s['id']}/utterances", json={"text": SPOKEN},
                            headers=token_auth).status_code == 401
    assert _socket_code(two_tenants, f"/v1/sessions/{s['id']}/stream", headers=token_auth) == 4401
    assert _socket_code(two_tenants, f"/v1/sessions/{s['id']}/stream?token={s['token']}") == 4401
    # on its own socket it watches, and whatever it sends is not heard
    with two_tenants.websocket_connect(f"/hud/{s['id']}/ws",
                                       subprotocols=["trendlens.hud", f"token.{s['token']}"]) as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_json({"type": "utterance", "text": SPOKEN})
    assert two_tenants.get(f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH).json()["items"] == []


def test_a_hud_token_opens_only_its_own_session(two_tenants):
    mine, theirs = _session(two_tenants), _session(two_tenants, OTHER_AUTH)
    for sid in (theirs["id"], "s_no_such_session"):
        assert _socket_code(two_tenants, f"/hud/{sid}/ws",
                            subprotocols=["trendlens.hud", f"token.{mine['token']}"]) == 4404
    assert "?token" not in mine["hud_url"] and mine["hud_url"].endswith(f"#token={mine['token']}")


def test_an_unknown_session_id_does_not_stall_the_event_loop(tmp_path):
    """Anyone can name a random session; while the store takes its time to say 'no such session',
    everyone else is still answered."""
    app = app_client(tmp_path / "data").app
    with LiveServer(app) as server:
        runtime = app.state.runtime
        real_query = runtime.sessions.store.query

        class SlowStore:  # a store answering session lookups slowly (PostgreSQL failing over, say)
            def __getattr__(self, name):
                return getattr(runtime.store, name)

            def query(self, sql, params=()):
                if "FROM sessions WHERE id" in sql:
                    time.sleep(3)
                return real_query(sql, params)

        runtime.sessions.store = SlowStore()
        slow = threading.Thread(target=lambda: httpx.get(server.url + "/v1/sessions/s_random/captions",
                                                         headers=AUTH, timeout=30), daemon=True)
        slow.start()
        time.sleep(0.5)
        started = time.monotonic()
        assert httpx.get(server.url + "/healthz", timeout=30).status_code == 200
        waited = time.monotonic() - started
        slow.join(timeout=30)
        runtime.sessions.store = runtime.store
    assert waited < 1.0, f"/healthz waited {waited:.1f} s behind a lookup of an unknown session"
