"""What the API tests share: a session started as a client starts one."""

from __future__ import annotations

from harness.apps import AUTH

__all__ = ["session"]


def session(client, profile="even-g1"):
    r = client.post("/v1/sessions", json={"profile": profile}, headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()

