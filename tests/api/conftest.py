from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from agent.api import create_app
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings
from agent.testing import free_port

KEY = "test-key-123"
# Starlette's TestClient.websocket_connect adds handshake headers to the dict it is given:
# pass dict(AUTH) there, so this one stays clean for every other client.
AUTH = {"Authorization": f"Bearer {KEY}"}
HOSTILE = "<img src=x onerror=alert(1)>"


def make_runtime(data_dir: Path, *, llm_client: httpx.AsyncClient | None = None, **overrides) -> Runtime:
    """A runtime over the synthetic demo snapshot, with the fast hash embedder unless told otherwise
    (`llm_client`: where the LLM's requests go, e.g. a `MockTransport`)."""
    embedder = overrides.pop("embedder", HashEmbedder())
    settings = Settings(data_dir=data_dir, offline=True, api_keys=KEY, **overrides)
    runtime = Runtime.build(settings, embedder=embedder, llm_client=llm_client)

    async def first_cycle() -> None:
        await runtime.collector.cycle()
        await runtime.collector.aclose()

    asyncio.run(first_cycle())
    return runtime


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with TestClient(app) as c:
        yield c


class LiveServer:
    """The real app under uvicorn on 127.0.0.1, in a thread, for real clients (openai, browsers)."""

    def __init__(self, app) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on",
                                ws="websockets-sansio")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as server:
        yield server
