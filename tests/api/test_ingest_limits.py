"""POST /v1/topics is bounded: a cap per request (413) and a bounded queue before indexing (429)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

import httpx
import numpy as np

from agent.api import create_app
from agent.ranking import HashEmbedder
from harness.apps import AUTH, LiveServer, make_runtime


def _topics(n: int, prefix: str = "t") -> list[dict]:
    return [{"id": f"{prefix}-{i}", "title": f"Ingested headline number {i} about {prefix}"} for i in range(n)]


def test_a_request_over_the_cap_is_413_with_the_limit_in_the_message(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path / "data", max_request_bytes=4_000_000)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, headers=AUTH, timeout=60) as client:
        r = client.post("/v1/topics", json=_topics(5001))
        assert r.status_code == 413, r.text
        error = r.json()["error"]
        assert set(error) == {"message", "type", "param", "code"} and "5000" in error["message"]
        assert client.post("/v1/topics", json=_topics(3)).status_code == 201


class SlowEmbedder(HashEmbedder):
    """The hash embedder at a slow model's pace, once `slow` is set: indexing falls behind ingestion."""

    slow = False

    def encode(self, texts: Sequence[str], *, role: str = "passage") -> np.ndarray:
        if self.slow and role == "passage":
            time.sleep(1.5)
        return super().encode(texts, role=role)


def test_ingest_past_the_queue_is_429_with_retry_after_and_then_admitted(tmp_path: Path) -> None:
    embedder = SlowEmbedder()
    runtime = make_runtime(tmp_path / "data", ingest_queue_topics=10, embedder=embedder)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)

    async def scenario(url: str) -> None:
        async with httpx.AsyncClient(base_url=url, headers=AUTH, timeout=60) as client:
            first = asyncio.create_task(client.post("/v1/topics", json=_topics(6, "a")))
            await asyncio.sleep(0.5)  # the first request's topics are being embedded
            r = await client.post("/v1/topics", json=_topics(6, "b"))
            assert r.status_code == 429, r.text
            assert int(r.headers["Retry-After"]) >= 1 and r.json()["error"]["code"] == "ingest_queue_full"
            assert "capacity 10" in r.json()["error"]["message"]
            assert (await first).status_code == 201  # the queued one went through once indexed
            assert (await client.post("/v1/topics", json=_topics(6, "b"))).status_code == 201
            found = (await client.get("/v1/topics/b-5")).json()
            assert found["title"] == "Ingested headline number 5 about b"

    with LiveServer(app) as server:
        embedder.slow = True
        asyncio.run(scenario(server.url))
