from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.api import create_app
from harness.apps import LiveServer, make_runtime

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with TestClient(app) as c:
        yield c


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as server:
        yield server
