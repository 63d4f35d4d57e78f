"""One client key against a loopback server: its watch list and channels cannot stop the service, reach
inside it, or cost the other tenants their answers (docs/security.md, "Watch lists and channels")."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from agent.api import create_app
from harness.apps import AUTH, KEY, LiveServer, make_runtime
from tests.notify.receiver import receiver

CLIENT = "client-tenant-key-789"
CLIENT_AUTH = {"Authorization": f"Bearer {CLIENT}"}
TARGET_S = 2.5  # the longest any tenant's request may take while one key attacks
SPOKEN = "今年春晚的机器人扭秧歌你们看了吗"  # captioned on the synthetic snapshot


@contextmanager
def silent_host() -> Iterator[int]:
    """A loopback port that accepts connections and never answers a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in held:
            conn.close()
        listener.close()


@contextmanager
def served(data_dir: Path, *, loopback_channels: bool = False) -> Iterator[tuple[LiveServer, object]]:
    """The app under uvicorn on loopback, with the admin key KEY and a client key CLIENT."""
    runtime = make_runtime(data_dir, api_keys=f"{KEY},{CLIENT}")
    if loopback_channels:  # the attack's silent host is on loopback: let a key's channel reach it
        runtime.watcher.lists.allowed = lambda address: True
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        yield live, runtime


def timed(client: httpx.Client, method: str, path: str, **kwargs: object) -> tuple[float, httpx.Response]:
    start = time.monotonic()
    response = client.request(method, path, timeout=30, **kwargs)  # type: ignore[arg-type]
    return time.monotonic() - start, response


def everyone_is_answered(client: httpx.Client) -> list[str]:
    """Each of the probes the targets name, and a live session's caption: what took too long or failed."""
    slow = []
    for method, path, kwargs in (("GET", "/healthz", {}), ("GET", "/readyz", {}),
                                 ("GET", "/v1/sources", {"headers": AUTH}),
                                 ("POST", "/v1/sessions", {"headers": AUTH, "json": {}})):
        took, response = timed(client, method, path, **kwargs)
        if took > TARGET_S or response.status_code >= 500:
            slow.append(f"{method} {path}: {response.status_code} in {took:.1f}s")
    session = client.post("/v1/sessions", headers=AUTH, json={}, timeout=30).json()
    took, said = timed(client, "POST", f"/v1/sessions/{session['id']}/utterances", headers=AUTH,
                       json={"text": SPOKEN, "final": True})
    if took > TARGET_S or said.status_code != 200 or not said.json()["captions"]:
        slow.append(f"caption: {said.status_code} in {took:.1f}s")
    return slow


def probe_while(client: httpx.Client, busy: threading.Event, at_least_s: float) -> list[str]:
    """Probe again and again while `busy` is set (and for `at_least_s`), then once after."""
    failures: list[str] = []
    until = time.monotonic() + at_least_s
    while busy.is_set() or time.monotonic() < until:
        failures += everyone_is_answered(client)
        time.sleep(0.2)
    return failures + everyone_is_answered(client)


def fetch_cycle(client: httpx.Client) -> tuple[float, int]:
    """A fetch cycle through the admin's workflow run: how long it took, its status."""
    took, response = timed(client, "POST", "/v1/workflows/refresh_sources/run", headers=AUTH)
    return took, response.status_code


def attack(live: LiveServer, watch: dict, at_least_s: float) -> tuple[list[str], float]:
    """The client key sets `watch`, a fetch cycle runs, everyone probes meanwhile and after."""
    with httpx.Client(base_url=live.url) as client:
        assert client.put("/v1/watch", headers=CLIENT_AUTH, json=watch, timeout=30).status_code == 200
        busy = threading.Event()
        busy.set()
        with ThreadPoolExecutor(1) as pool:
            cycle = pool.submit(fetch_cycle, client)
            cycle.add_done_callback(lambda _: busy.clear())
            failures = probe_while(client, busy, at_least_s)
            took, status = cycle.result(timeout=120)
    assert status == 200
    return failures, took


def test_channels_that_never_answer_hold_neither_the_cycle_nor_any_request(tmp_path) -> None:
    from agent.notify.outbox import Outbox

    with silent_host() as port, served(tmp_path / "data", loopback_channels=True) as (live, runtime):
        runtime.watcher.lists.outbox = Outbox(size=4, workers=2)  # type: ignore[attr-defined] # fills sooner
        urls = [f"json://127.0.0.1:{port}/hook{n}" for n in range(10)]
        failures, cycle_s = attack(live, {"watch": "春晚; 机器人; 关税", "notify_urls": urls}, at_least_s=6)
        assert runtime.watcher.outbox.waiting  # type: ignore[attr-defined] # the outbox's to wait on, not the cycle's
        ready = httpx.get(f"{live.url}/readyz", timeout=TARGET_S)
    assert not failures
    assert cycle_s < 10  # the cycle hands the alerts over and returns
    assert ready.status_code == 200 and any("push queue backed up" in r for r in ready.json()["reasons"])


def test_a_catastrophic_regex_freezes_nothing_now_or_after_a_restart(tmp_path) -> None:
    # `(.+)+QQ` backtracks exponentially in `re` on any title of 25 characters or more
    watch = {"watch": "/(.+)+QQ/; /(a|aa|aaa)+$/; /(\\w+\\s?)+$/"}
    with served(tmp_path / "data") as (live, _):
        failures, cycle_s = attack(live, watch, at_least_s=3)
    assert not failures and cycle_s < 10
    with served(tmp_path / "data") as (live, _), httpx.Client(base_url=live.url) as client:  # stored: a restart
        busy = threading.Event()
        busy.set()
        with ThreadPoolExecutor(1) as pool:
            cycle = pool.submit(fetch_cycle, client)
            cycle.add_done_callback(lambda _: busy.clear())
            failures = probe_while(client, busy, at_least_s=2)
            assert cycle.result(timeout=120)[1] == 200
    assert not failures


@pytest.mark.parametrize("url", [
    "json://127.0.0.1:9/internal/purge?method=DELETE&+X-Internal-Token=forged&:action=purge",
    "form://127.0.0.1:9/x?method=PUT",
    "mailtos://user:pass@example.com?smtp=127.0.0.1&port=6379",
    "rsyslog://127.0.0.1:6379",
    "discord://1234/abcd?template=/etc/hostname",
    "json://example.com/hook?rto=3600&cto=3600",
    "json://[::1",
    "json://example.com/hook?format=text;method=DELETE",
    "json://example.com/hook?format=text#&method=DELETE&:action=purge",
    "json://example.com/" + "x" * 3000,
])
def test_a_client_key_may_not_choose_method_header_field_file_timeout_or_service(url, tmp_path) -> None:
    from fastapi.testclient import TestClient

    runtime = make_runtime(tmp_path / "data", api_keys=f"{KEY},{CLIENT}")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with TestClient(app) as client:
        refused = client.put("/v1/watch", headers=CLIENT_AUTH, json={"watch": "春晚", "notify_urls": [url]})
    assert refused.status_code == 422, refused.text
    message = refused.json()["error"]["message"]
    assert "\n" not in message and "forged" not in message and "pass" not in message


def test_a_client_keys_channel_reaches_no_loopback_address_and_its_alert_waits(tmp_path) -> None:
    with receiver() as r, served(tmp_path / "data") as (live, runtime), httpx.Client(base_url=live.url) as client:
        urls = [r.url("/hook"), f"json://localhost:{r.port}/named"]
        assert client.put("/v1/watch", headers=CLIENT_AUTH, json={"watch": "春晚", "notify_urls": urls},
                          timeout=30).status_code == 200
        assert fetch_cycle(client)[1] == 200
        deadline = time.monotonic() + 20
        while runtime.watcher.outbox.waiting and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(0.1)
        alerts = client.get("/v1/alerts", headers=CLIENT_AUTH, timeout=30).json()["items"]
    assert r.posts == []  # neither the address nor a name resolving to loopback was reached
    assert alerts and all(a["state"] == "pending" and a["expires_at"] for a in alerts)


def test_a_revoked_keys_list_and_channels_stop(tmp_path) -> None:
    from fastapi.testclient import TestClient

    from agent.store.keys import revoke_key

    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with TestClient(app) as client:
        stored = app.state.keys.create("tenant")
        auth = {"Authorization": f"Bearer {stored}"}
        assert client.put("/v1/watch", headers=auth, json={"watch": "春晚"}).status_code == 200
        owner = next(o for o in runtime.watcher.lists.owners if o != "operator")
        revoke_key(runtime.store, owner)
        runtime.watcher.lists.refresh()
        assert owner not in runtime.watcher.lists.owners
        from agent.store.watch_lists import lists_since
        assert all(s.owner != owner for s in lists_since(runtime.store))


def test_meanings_are_capped_per_key_with_one_line(tmp_path) -> None:
    from fastapi.testclient import TestClient

    runtime = make_runtime(tmp_path / "data", api_keys=f"{KEY},{CLIENT}")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    many = "; ".join(f"~meaning_{n}" for n in range(20))
    with TestClient(app) as client:
        refused = client.put("/v1/watch", headers=CLIENT_AUTH, json={"watch": many})
        few = client.put("/v1/watch", headers=CLIENT_AUTH, json={"watch": "~机器人跳舞; ~robots_dancing"})
    assert refused.status_code == 422 and "at most 10" in refused.json()["error"]["message"]
    assert "\n" not in refused.json()["error"]["message"]
    assert few.status_code == 200


def test_the_most_meanings_a_key_may_hold_cost_no_one_their_answers(tmp_path) -> None:
    meanings = "; ".join(f"~春晚节目第{n}个_robots" for n in range(10))
    with served(tmp_path / "data") as (live, _):
        failures, cycle_s = attack(live, {"watch": meanings}, at_least_s=2)
    assert not failures and cycle_s < 10


def test_a_channel_follows_no_redirect() -> None:
    import asyncio
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from agent.notify import Notifier
    from agent.notify.channel import CLIENT_KEY
    from agent.notify.message import Message

    asked: list[str] = []

    class Redirecting(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            asked.append(self.path)
            self.send_response(307 if self.path == "/hook" else 200)
            self.send_header("Location", "/internal/purge")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET = _answer  # noqa: N815 - http.server's names

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirecting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        notifier = Notifier([f"json://127.0.0.1:{server.server_address[1]}/hook"], policy=CLIENT_KEY, retries=0,
                            allowed=lambda address: True)
        [delivery] = asyncio.run(notifier.send(Message(title="t", markdown="m", text="m")))
        notifier.close()
    finally:
        server.shutdown()
        server.server_close()
    assert asked == ["/hook"] and not delivery.ok


def test_channel_secrets_are_sealed_in_the_store_with_the_operators_key(tmp_path) -> None:
    from fastapi.testclient import TestClient

    from agent.settings import Settings
    from agent.watch import WatchLists

    key = "k" * 40
    runtime = make_runtime(tmp_path / "data", api_keys=f"{KEY},{CLIENT}", utterance_hmac_key=key)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    token = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
    with TestClient(app) as client:
        assert client.put("/v1/watch", headers=CLIENT_AUTH,
                          json={"watch": "春晚", "notify_urls": [f"tgram://{token}/-100200300"]}).status_code == 200
    [row] = runtime.store.query("SELECT urls FROM watch_lists")
    assert "AAHdq" not in row["urls"] and "sealed" in row["urls"]
    again = WatchLists.from_settings(Settings(data_dir=tmp_path / "data", offline=True, utterance_hmac_key=key),
                                     runtime.store)
    assert [c.name for o in again.owners.values() if o.notifier for c in o.notifier.channels] == ["tgram#1"]
    without = WatchLists("", store=runtime.store)  # another key, or none: the words, not the channels
    assert [o.notifier for o in without.owners.values()] == [None] and list(without.owners.values())[0].groups
