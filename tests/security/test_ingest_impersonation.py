"""An ingest cannot impersonate: no fetched item's id, no other key's topic, only http(s) links, a cap per key."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.api import create_app
from harness.apps import make_runtime

ADMIN, OTHER_ADMIN = "admin-one", "admin-two"


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def client(tmp_path: Path):
    runtime = make_runtime(tmp_path / "data", api_keys=None, admin_keys=f"{ADMIN},{OTHER_ADMIN}",
                           ingest_topics_per_key=5)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as c:
        yield c


def _fetched(client: TestClient) -> dict:
    items = client.get("/v1/topics", params={"source": "zhihu", "limit": 1}, headers=_auth(ADMIN)).json()["items"]
    assert items and items[0]["id"].startswith("zhihu:")
    return items[0]


def test_posting_a_fetched_topic_s_id_is_refused_and_every_tenant_still_reads_the_platform_s(client):
    real = _fetched(client)
    forged = {"id": real["id"], "source": "zhihu", "title": "forged headline", "url": "https://evil.example/x"}
    r = client.post("/v1/topics", json=[forged], headers=_auth(ADMIN))
    assert r.status_code == 422, r.text
    assert r.json()["error"]["message"].startswith(f"topic id {real['id']!r} is in the namespace of the fetched source")
    # an id the platform has not listed yet is refused the same way: fetched ids are <source>:<item id>
    squat = client.post("/v1/topics", json=[{**forged, "id": "weibo:not-listed-yet"}], headers=_auth(ADMIN))
    assert squat.status_code == 422
    shown = client.get(f"/v1/topics/{real['id']}", headers=_auth(OTHER_ADMIN)).json()
    assert shown["title"] == real["title"] and shown["url"] == real["url"]
    listed = client.get("/v1/topics", params={"limit": 500}, headers=_auth(OTHER_ADMIN)).json()["items"]
    assert not any(i["title"] == "forged headline" for i in listed)


def test_one_key_cannot_rewrite_a_topic_another_key_ingested(client):
    mine = [{"id": "desk-1", "source": "newsroom", "title": "Our headline", "url": "https://example.org/1"}]
    assert client.post("/v1/topics", json=mine, headers=_auth(ADMIN)).status_code == 201
    assert client.post("/v1/topics", json=[{**mine[0], "title": "v2"}], headers=_auth(ADMIN)).status_code == 201
    r = client.post("/v1/topics", json=[{**mine[0], "title": "hijacked"}], headers=_auth(OTHER_ADMIN))
    assert r.status_code == 409 and "ingested by another key" in r.json()["error"]["message"]
    shown = client.get("/v1/topics/desk-1", headers=_auth(OTHER_ADMIN)).json()
    assert shown["title"] == "v2" and shown["extra"]["ingested"] is True


@pytest.mark.parametrize("link", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
                                  "JaVaScRiPt:alert(1)", "//evil.example/x", "file:///etc/passwd", "https://"])
def test_only_http_links_are_stored(client, link):
    r = client.post("/v1/topics", json=[{"id": "l-1", "title": "a link", "url": link}], headers=_auth(ADMIN))
    assert r.status_code == 422, r.text
    message = r.json()["error"]["message"]
    assert "url" in message and "http:// or https:// link" in message and "\n" not in message
    assert client.get("/v1/topics/l-1", headers=_auth(ADMIN)).status_code == 404


def test_http_and_https_links_are_kept(client):
    body = [{"id": "ok-1", "title": "a", "url": "http://example.org/a"},
            {"id": "ok-2", "title": "b", "url": "HTTPS://example.org/b?q=1"}, {"id": "ok-3", "title": "c", "url": ""}]
    assert client.post("/v1/topics", json=body, headers=_auth(ADMIN)).status_code == 201
    assert client.get("/v1/topics/ok-2", headers=_auth(ADMIN)).json()["url"] == "HTTPS://example.org/b?q=1"
    assert client.get("/v1/topics/ok-3", headers=_auth(ADMIN)).json()["url"] is None


def test_each_key_holds_at_most_its_cap_of_ingested_topics(client):
    first = [{"id": f"cap-{i}", "title": f"topic {i}"} for i in range(4)]
    assert client.post("/v1/topics", json=first, headers=_auth(ADMIN)).status_code == 201
    over = client.post("/v1/topics", json=[{"id": f"cap-{i}", "title": f"topic {i}"} for i in range(3, 6)],
                       headers=_auth(ADMIN))
    assert over.status_code == 429, over.text
    error = over.json()["error"]
    assert error["code"] == "ingest_cap_reached"
    assert error["message"].startswith("this key holds 4 ingested topics and may hold 5")
    assert client.get("/v1/topics/cap-5", headers=_auth(ADMIN)).status_code == 404
    # re-sending its own ids costs nothing; one more still fits; another key has its own cap
    assert client.post("/v1/topics", json=first + [{"id": "cap-4", "title": "topic 4"}],
                       headers=_auth(ADMIN)).status_code == 201
    theirs = client.post("/v1/topics", json=[{"id": "theirs-1", "title": "t"}], headers=_auth(OTHER_ADMIN))
    assert theirs.status_code == 201
