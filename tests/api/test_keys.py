"""API keys across instances: a key made or revoked anywhere holds on every instance, no restart."""

from __future__ import annotations

from fastapi.testclient import TestClient

from agent.api import create_app, security
from agent.api.security import KNOWN_RECHECK_S, UNKNOWN_RECHECK_S, KeyRing
from agent.commands.cli import main
from agent.settings import Settings
from agent.store import open_store
from agent.store.keys import hash_key, list_keys, make_key, revoke_key
from harness.apps import make_runtime


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_key_made_or_revoked_on_another_instance_holds_here_without_a_restart(store, database_url, tmp_path):
    clock = Clock()
    ring = KeyRing(Settings(data_dir=tmp_path / "data", database_url=database_url), store, clock=clock)
    other = open_store(Settings(data_dir=tmp_path / "data", database_url=database_url))  # another instance
    try:
        assert ring.empty
        key = make_key(other, "phone app")
        assert not ring.empty
        assert ring.check(key) == hash_key(key)  # at once: an unknown key is asked of the store
        assert ring.check(key + "x") is None and ring.check("") is None and ring.check(None) is None

        revoke_key(other, hash_key(key)[:10])
        assert ring.check(key) == hash_key(key)  # remembered for a while...
        clock.now += KNOWN_RECHECK_S + 1
        assert ring.check(key) is None  # ...then refused on every instance
        assert list_keys(other) == []
    finally:
        other.close()


def test_a_wrong_key_costs_one_store_query_per_interval_not_one_per_request(store, tmp_path, monkeypatch):
    clock = Clock()
    ring = KeyRing(Settings(data_dir=tmp_path / "data"), store, clock=clock)
    asked: list[str] = []
    real = security.key_role
    monkeypatch.setattr(security, "key_role", lambda s, digest: asked.append(digest) or real(s, digest))
    for _ in range(50):
        assert ring.check("tl_wrong") is None
    assert len(asked) == 1
    clock.now += UNKNOWN_RECHECK_S + 0.1
    assert ring.check("tl_wrong") is None and len(asked) == 2


def test_keys_cli_creates_lists_and_revokes_what_the_service_accepts(tmp_path, capsys, monkeypatch):
    data = tmp_path / "data"
    runtime = make_runtime(data)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        monkeypatch.setenv("TRENDLENS_DATA_DIR", str(data))
        assert main(["keys", "create", "--label", "living room"]) == 0
        key = capsys.readouterr().out.strip()
        assert key.startswith("tl_")
        assert c.get("/v1/topics", headers={"Authorization": f"Bearer {key}"}).status_code == 200

        assert main(["keys", "list"]) == 0
        listed = capsys.readouterr().out
        assert "living room" in listed and key not in listed  # ids and labels, never the key
        key_id = listed.split()[0]

        assert main(["keys", "revoke", "abc"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "at least 8 hex characters" in err
        assert main(["keys", "revoke", key_id]) == 0
        assert f"revoked {key_id}" in capsys.readouterr().out
        c.app.state.keys.forget_answers()  # what KNOWN_RECHECK_S seconds would do
        assert c.get("/v1/topics", headers={"Authorization": f"Bearer {key}"}).status_code == 401
