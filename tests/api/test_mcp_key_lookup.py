"""/mcp checks its key off the event loop: a slow store lookup of an unknown key stalls no one else."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent.api import create_app, security
from harness.apps import LiveServer, make_runtime

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    runtime = make_runtime(tmp_path / "data")
    with LiveServer(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as live:
        yield live


def test_a_slow_key_lookup_on_mcp_does_not_stall_healthz(server: LiveServer, monkeypatch) -> None:
    looking = threading.Event()
    real = security.key_role

    def slow_lookup(store, digest):  # a store that takes its time (a busy PostgreSQL, a long WAL checkpoint)
        looking.set()
        time.sleep(1.5)
        return real(store, digest)

    monkeypatch.setattr(security, "key_role", slow_lookup)
    answers: list[int] = []
    caller = threading.Thread(target=lambda: answers.append(httpx.post(
        server.url + "/mcp", json=INITIALIZE, timeout=10,
        headers={"Authorization": "Bearer tl_not_a_key", "Accept": "application/json, text/event-stream"},
    ).status_code))
    caller.start()
    assert looking.wait(5)
    started = time.monotonic()
    assert httpx.get(server.url + "/healthz", timeout=10).status_code == 200
    assert time.monotonic() - started < 0.5, "the event loop waited for the store"
    caller.join(10)
    assert answers == [401]
