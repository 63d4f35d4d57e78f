"""Two tenants on one service: the env key and a second one, each with its own sessions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.api import create_app
from harness.apps import KEY, make_runtime

OTHER = "other-tenant-key-456"
OTHER_AUTH = {"Authorization": f"Bearer {OTHER}"}


def app_client(data_dir: Path, **overrides) -> TestClient:
    runtime = make_runtime(data_dir, **overrides)
    settings = runtime.settings.model_copy(update={"api_keys": f"{KEY},{OTHER}"})
    return TestClient(create_app(settings, runtime=runtime, schedule=False, announce_key=False))


@pytest.fixture
def two_tenants(tmp_path: Path) -> Iterator[TestClient]:
    with app_client(tmp_path / "data") as client:
        yield client
