"""Roles: a client key reads and drives its own sessions; only an admin key changes what every tenant sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.api import create_app
from agent.api.deps import ADMIN_ONLY
from agent.commands.cli import main
from agent.store.keys import list_keys
from harness.apps import make_runtime

CLIENT, ADMIN, BOTH = "client-key-1", "admin-key-1", "both-lists-key"
TOPIC = [{"id": "r1", "source": "newsroom", "title": "Our own headline", "url": "https://example.org/r1"}]


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def roles(tmp_path: Path):
    runtime = make_runtime(tmp_path / "data", api_keys=f"{CLIENT},{BOTH}", admin_keys=f"{ADMIN},{BOTH}")
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as client:
        yield client


ADMIN_ROUTES = [("post", "/v1/topics", TOPIC), ("post", "/v1/workflows/refresh_sources/run", None),
                ("get", "/v1/workflows", None)]


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ROUTES)
def test_a_client_key_gets_403_with_one_clear_line_on_an_admin_route(roles, method, path, body):
    r = roles.request(method, path, json=body, headers=_auth(CLIENT))
    assert r.status_code == 403, r.text
    message = r.json()["error"]["message"]
    assert message == ADMIN_ONLY and "\n" not in message and "admin key" in message
    assert r.json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize("key", [ADMIN, BOTH])
def test_an_admin_key_and_a_key_in_both_lists_may_ingest_and_run_workflows(roles, key):
    assert roles.post("/v1/topics", json=TOPIC, headers=_auth(key)).status_code == 201
    assert roles.get("/v1/workflows", headers=_auth(key)).status_code == 200


def test_a_client_key_keeps_every_client_route(roles):
    auth = _auth(CLIENT)
    assert roles.get("/v1/topics", headers=auth).status_code == 200
    assert roles.get("/v1/sources", headers=auth).status_code == 200
    assert roles.get("/v1/digest", headers=auth).status_code == 200
    session = roles.post("/v1/sessions", json={}, headers=auth).json()
    said = roles.post(f"/v1/sessions/{session['id']}/utterances", json={"text": "春晚机器人"}, headers=auth)
    assert said.status_code == 200
    assert roles.delete(f"/v1/sessions/{session['id']}", headers=auth).status_code == 204


def test_admin_keys_are_valid_keys_for_client_routes_too(roles):
    assert roles.get("/v1/topics", headers=_auth(ADMIN)).status_code == 200
    assert roles.post("/v1/sessions", json={}, headers=_auth(ADMIN)).status_code == 201


def test_keys_create_admin_stores_an_admin_key_and_a_plain_one_a_client(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    runtime = make_runtime(data, admin_keys=None)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        monkeypatch.setenv("TRENDLENS_DATA_DIR", str(data))
        assert main(["keys", "create", "--admin", "--label", "loader"]) == 0
        admin = capsys.readouterr().out.strip()
        assert main(["keys", "create", "--label", "phone app"]) == 0
        client = capsys.readouterr().out.strip()
        assert c.post("/v1/topics", json=TOPIC, headers=_auth(admin)).status_code == 201
        assert c.post("/v1/topics", json=TOPIC, headers=_auth(client)).status_code == 403
        assert main(["keys", "list"]) == 0
        listed = capsys.readouterr().out.splitlines()
        assert any("admin" in line and "loader" in line for line in listed)
        assert any("client" in line and "phone app" in line for line in listed)
    assert {k.label: k.role for k in list_keys(runtime.store)} == {"loader": "admin", "phone app": "client"}


def test_the_key_serve_mints_on_a_first_start_is_the_operator_s_admin_key(tmp_path):
    runtime = make_runtime(tmp_path / "data", api_keys=None, admin_keys=None)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)):
        pass
    assert [(k.label, k.role) for k in list_keys(runtime.store)] == [("serve", "admin")]
