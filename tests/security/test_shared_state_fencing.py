"""Shared session state under faults, on a real redis-server: a lost lock cannot overwrite newer state,
and a Redis that stops answering is a 503 within seconds, not a hung request."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent.live.gating import SessionGate
from agent.live.shared_sessions import RedisSessionState
from agent.ranking.window import ConversationWindow
from harness.servers import RedisServer, start_instance, start_redis


def _texts(window: ConversationWindow) -> list[str]:
    return [u.text for u in window._items]


async def test_a_save_that_lost_its_lock_is_dropped_and_the_new_holder_s_state_survives(redis_server, caplog):
    import redis.asyncio as aioredis

    first, second = RedisSessionState(redis_server.url), RedisSessionState(redis_server.url)
    admin = aioredis.from_url(redis_server.url)
    caplog.set_level(logging.INFO)
    try:
        older = ConversationWindow()
        async with first.held("fenced", older, SessionGate()):
            older.add("第一个实例听到的话", ts=1.0)
            # the first holder stalls; its lock is gone (lapsed, evicted, deleted) mid-utterance
            assert await admin.delete("trendlens:session:fenced:lock") == 1
            newer = ConversationWindow()
            async with second.held("fenced", newer, SessionGate()):
                newer.add("第二个实例听到的话", ts=2.0)
        # the first holder's save came last, and was dropped
        after = ConversationWindow()
        async with second.held("fenced", after, SessionGate()):
            assert _texts(after) == ["第二个实例听到的话"]
        assert first.lost_saves == 1 and second.lost_saves == 0
        assert "lock lost before the save" in caplog.text
        assert "实例听到" not in caplog.text  # no speech in the log
    finally:
        await admin.aclose()
        await first.aclose()
        await second.aclose()


async def test_a_missing_state_starts_fresh_not_from_this_instance_s_memory(redis_server):
    state = RedisSessionState(redis_server.url)
    window, gate = ConversationWindow(), SessionGate()
    window.add("很久以前这台实例记得的话", ts=1.0)
    gate.chars_since_decision = 99
    try:
        async with state.held("erased", window, gate):
            assert _texts(window) == [] and gate.chars_since_decision == 0
    finally:
        await state.aclose()


async def test_a_redis_blip_shorter_than_the_lease_does_not_cost_the_lock(redis_server, monkeypatch):
    import asyncio

    from agent.live import shared_sessions

    proxy = SilentProxy(redis_server.port)
    holder, other = RedisSessionState(proxy.url), RedisSessionState(redis_server.url)
    monkeypatch.setattr(shared_sessions, "LOCK_WAIT_S", 0.3)
    try:
        async with holder.held("blip", ConversationWindow(), SessionGate()):
            await asyncio.sleep(0.5)
            proxy.silent.set()  # the renewal due at 1.7 s times out (2 s) and is retried
            await asyncio.sleep(2.5)
            proxy.silent.clear()
            await asyncio.sleep(2.5)  # past the 5 s lease of the first acquisition
            with pytest.raises(shared_sessions.SessionBusy):
                async with other.held("blip", ConversationWindow(), SessionGate()):
                    pass
        assert holder.lost_saves == 0
    finally:
        await holder.aclose()
        await other.aclose()
        proxy.close()


class SilentProxy:
    """A TCP proxy to Redis that can go silent: connections stay open, nothing is answered."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.silent = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = [self._listener]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                if not self.silent.is_set():  # silent: read and drop, as a partition or a paused host would
                    dst.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        for s in self._sockets:
            s.close()


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    server = start_redis()
    try:
        yield server
    finally:
        server.stop()


def test_a_redis_that_stops_answering_is_a_503_within_seconds(own_redis: RedisServer, tmp_path: Path) -> None:
    proxy = SilentProxy(own_redis.port)
    instance = start_instance(tmp_path / "serve", api_keys="k", redis_url=proxy.url)
    try:
        auth = {"Authorization": "Bearer k"}
        session = httpx.post(instance.url + "/v1/sessions", json={}, headers=auth, timeout=10).json()
        url = instance.url + f"/v1/sessions/{session['id']}/utterances"
        assert httpx.post(url, json={"text": "今天天气不错"}, headers=auth, timeout=10).status_code == 200
        proxy.silent.set()
        started = time.monotonic()
        r = httpx.post(url, json={"text": "今天天气不错"}, headers=auth, timeout=20)
        elapsed = time.monotonic() - started
        assert r.status_code == 503 and "(Redis" in r.json()["error"]["message"], r.text
        # REDIS_SOCKET_TIMEOUT_S (2 s) and the answer; redis-py's own default would wait 5 s (8.x) or
        # forever (5.x, which pyproject allows)
        assert elapsed < 4, f"answered after {elapsed:.1f} s"
        assert "Traceback" not in r.text
    finally:
        instance.stop()
        proxy.close()
