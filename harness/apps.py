"""The app over the synthetic demo snapshot, in process or under uvicorn, with one known API key.

What the API tests and the in-process benches (`scripts/bench/guards.py`, `lingzhu.py`) drive.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from agent.commands.ports import free_port
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings

__all__ = ["AUTH", "KEY", "LiveServer", "make_runtime"]

KEY = "test-key-123"
# Starlette's TestClient.websocket_connect adds handshake headers to the dict it is given:
# pass dict(AUTH) there, so this one stays clean for every other client.
AUTH = {"Authorization": f"Bearer {KEY}"}


def make_runtime(data_dir: Path, *, llm_client: httpx.AsyncClient | None = None, **overrides: Any) -> Runtime:
    """A runtime over the synthetic demo snapshot, with the fast hash embedder unless told otherwise
    (`llm_client`: where the LLM's requests go, e.g. a `MockTransport`)."""
    embedder = overrides.pop("embedder", HashEmbedder())
    overrides.setdefault("api_keys", KEY)
    overrides.setdefault("admin_keys", KEY)  # the tests' one key may ingest; role tests name their own
    settings = Settings(data_dir=data_dir, offline=True, **overrides)
    runtime = Runtime.build(settings, embedder=embedder, llm_client=llm_client)

    async def first_cycle() -> None:
        await runtime.collector.cycle()
        await runtime.collector.aclose()

    asyncio.run(first_cycle())
    return runtime


class LiveServer:
    """The real app under uvicorn on 127.0.0.1, in a thread, for real clients (openai, browsers)."""

    def __init__(self, app: Any) -> None:
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

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
