"""`DELETE /v1/sessions/{id}`: the owner erases a session, and nothing of it is left to read:
not in the database file, not in its WAL, not in Redis."""

from __future__ import annotations

import pytest

from harness.apps import AUTH

from .conftest import OTHER_AUTH, app_client

PASSWORD = "zebra-quokka-4711"
SPOKEN = f"the wifi password is {PASSWORD} by the way, 春晚的机器人扭秧歌你们看了吗"


def _files(data_dir) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(data_dir.glob("trendlens.sqlite3*")) if p.is_file())


def _spoken_session(client) -> str:
    s = client.post("/v1/sessions", json={"profile": "even-g1"}, headers=AUTH).json()
    said = client.post(f"/v1/sessions/{s['id']}/utterances", json={"text": SPOKEN}, headers=AUTH)
    assert said.status_code == 200 and said.json()["captions"], said.text
    return s["id"]


@pytest.mark.sqlite_only
def test_a_password_said_at_the_table_never_reaches_the_files_by_default(tmp_path):
    with app_client(tmp_path / "data") as client:
        _spoken_session(client)
        assert PASSWORD.encode() not in _files(tmp_path / "data")


@pytest.mark.sqlite_only
def test_erasing_a_session_takes_its_words_out_of_the_database_and_its_wal(tmp_path):
    with app_client(tmp_path / "data", keep_utterances_days=7) as client:  # the operator kept the words
        sid = _spoken_session(client)
        keep = _spoken_session(client)  # another session of the same owner stays
        assert PASSWORD.encode() in _files(tmp_path / "data")
        assert client.delete(f"/v1/sessions/{sid}", headers=AUTH).status_code == 204
        assert PASSWORD.encode() in _files(tmp_path / "data")  # the other session's copy
        assert client.delete(f"/v1/sessions/{keep}", headers=AUTH).status_code == 204
        assert PASSWORD.encode() not in _files(tmp_path / "data")
        assert (tmp_path / "data" / "trendlens.sqlite3-wal").stat().st_size == 0


def test_only_the_owner_erases_and_then_the_session_is_gone_everywhere(tmp_path):
    with app_client(tmp_path / "data", keep_utterances_days=7) as client:
        sid = _spoken_session(client)
        assert client.delete(f"/v1/sessions/{sid}", headers=OTHER_AUTH).status_code == 404
        assert client.get(f"/v1/sessions/{sid}/captions", headers=AUTH).status_code == 200
        assert client.delete(f"/v1/sessions/{sid}", headers=AUTH).status_code == 204
        for r in (client.get(f"/v1/sessions/{sid}/captions", headers=AUTH),
                  client.post(f"/v1/sessions/{sid}/utterances", json={"text": "again"}, headers=AUTH),
                  client.delete(f"/v1/sessions/{sid}", headers=AUTH)):
            assert r.status_code == 404
        store = client.app.state.runtime.store
        for table in ("sessions WHERE id", "decisions WHERE session_id", "workflow_runs WHERE session_id"):
            assert store.query(f"SELECT COUNT(*) FROM {table} = ?", (sid,))[0][0] == 0, table
        assert client.app.state.runtime.hud.last_caption(sid) is None


def test_erasing_a_session_erases_its_shared_state_in_redis(tmp_path, redis_server):
    import redis

    r = redis.Redis.from_url(redis_server.url, decode_responses=True)
    with app_client(tmp_path / "data", redis_url=redis_server.url) as client:
        sid = _spoken_session(client)
        state = r.get(f"trendlens:session:{sid}")
        assert state is not None and PASSWORD in state  # the live conversation window, while it lasts
        assert 0 < r.ttl(f"trendlens:session:{sid}") <= 3600  # it expires by itself
        assert client.delete(f"/v1/sessions/{sid}", headers=AUTH).status_code == 204
        assert r.exists(f"trendlens:session:{sid}", f"trendlens:session:{sid}:lock") == 0
    r.close()
