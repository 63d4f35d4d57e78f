"""Two real `serve` processes on one PostgreSQL and one Redis, behind nginx running deploy/nginx.conf.

What compose deploys, on loopback: any request or WebSocket may land on either instance, and a
kill -9 of one loses nothing committed while its sessions carry on on the other. One cluster
serves the whole module (starting it is most of the time); the kill test runs last because it
restarts instance A.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest
import websockets

from agent.collect.joblocks import _NAMESPACE, _key
from agent.live.gating import DISPLAY_LOCK_S
from agent.live.shared_sessions import LOCK_TIMEOUT_S
from harness.servers import NGINX_SITE, Instance, NginxServer, render_nginx_site, start_instance, start_nginx

KEY = "cluster-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
SPOKEN = "春晚机器人扭秧歌你们看了吗"  # names a topic of the synthetic demo snapshot


@dataclass
class Cluster:
    a: Instance
    b: Instance
    nginx: NginxServer
    database_url: str
    redis_url: str


@pytest.fixture(scope="module")
def cluster(postgres_server, redis_server, tmp_path_factory) -> Iterator[Cluster]:
    database_url = postgres_server.create_database()
    base = tmp_path_factory.mktemp("cluster")
    # both at once, as compose starts them: they race for the migrations and the fetch jobs
    with ThreadPoolExecutor(2) as pool:
        started = [pool.submit(start_instance, base / name, api_keys=KEY, database_url=database_url,
                               redis_url=redis_server.url) for name in ("a", "b")]
        errors = [f.exception() for f in started]
    instances = [f.result() for f, e in zip(started, errors, strict=True) if e is None]
    if any(errors):
        for instance in instances:
            instance.stop()
        raise next(e for e in errors if e is not None)
    a, b = instances
    nginx = None
    try:
        nginx = start_nginx([a.port, b.port])
        yield Cluster(a=a, b=b, nginx=nginx, database_url=database_url, redis_url=redis_server.url)
    finally:
        if nginx is not None:
            nginx.stop()
        a.stop()
        b.stop()


def _ws(url: str) -> str:
    return "ws" + url.removeprefix("http")


def _session(url: str) -> dict:
    r = httpx.post(url + "/v1/sessions", json={}, headers=AUTH, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _say(url: str, session_id: str, text: str, timeout: float = 10) -> dict:
    r = httpx.post(url + f"/v1/sessions/{session_id}/utterances", json={"text": text}, headers=AUTH, timeout=timeout)
    assert r.status_code == 200, r.text
    return r.json()


def _history(url: str, session_id: str) -> list[dict]:
    r = httpx.get(url + f"/v1/sessions/{session_id}/captions?all=true&limit=1000", headers=AUTH, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["items"]


def _settled_history(url: str, session_id: str, *, quiet_s: float = DISPLAY_LOCK_S + 1,
                     within_s: float = 30) -> list[dict]:
    """The session's decisions once nothing more comes: a caption held back by the one on screen goes
    up by the clock up to the display lock after its line (a weaker meme waits out the caption's time
    on screen: `GatePolicy.held_back_s`), on any instance's sweep, and is a decision too."""
    seen, since, deadline = _history(url, session_id), time.monotonic(), time.monotonic() + within_s
    while time.monotonic() - since < quiet_s and time.monotonic() < deadline:
        time.sleep(0.25)
        now = _history(url, session_id)
        if now != seen:
            seen, since = now, time.monotonic()
    return seen


def test_the_deployed_nginx_conf_is_what_the_tests_run():
    deployed = NGINX_SITE.read_text(encoding="utf-8")
    rendered = render_nginx_site(deployed, [5001, 5002], 5000)
    assert "server 127.0.0.1:5001 max_fails=2 fail_timeout=10s;" in rendered
    assert "server 127.0.0.1:5002 max_fails=2 fail_timeout=10s;" in rendered
    assert "trendlens-a" not in rendered and "listen 127.0.0.1:5000;" in rendered
    # everything else is the deployed file, line for line
    kept = [line for line in deployed.splitlines() if "trendlens-" not in line and "listen 80;" not in line]
    assert kept == [line for line in rendered.splitlines() if "127.0.0.1:" not in line]
    # a deploy file changed past what the rendering knows fails here, not silently in the cluster
    with pytest.raises(AssertionError, match="server trendlens"):
        render_nginx_site(deployed.replace("trendlens-a:8000", "app-a:8000").replace("trendlens-b:8000", "app-b:8000"),
                          [5001], 5000)
    with pytest.raises(AssertionError, match="listen 80"):
        render_nginx_site(deployed.replace("listen 80;", "listen 8080;"), [5001], 5000)

def test_each_source_is_fetched_by_exactly_one_instance(cluster):
    import psycopg

    sources = [s["name"] for s in httpx.get(cluster.a.url + "/v1/sources", headers=AUTH).json()["items"]]
    deadline = time.monotonic() + 15
    while True:  # both first fetches have asked for every source's job
        with psycopg.connect(cluster.database_url, autocommit=True) as db:
            holders = db.execute(
                "SELECT l.objid, l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s AND l.objsubid = 2 "
                "AND a.application_name = 'trendlens-jobs' AND a.datname = current_database()",
                (_NAMESPACE,)).fetchall()
            backends = db.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'trendlens-jobs' "
                                  "AND datname = current_database()").fetchone()[0]
            fetched = [json.loads(row[0]) for row in db.execute("SELECT sources FROM cycles").fetchall()]
        if backends == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert backends == 2, "each instance keeps one connection for its job locks"
    by_job: dict[int, list[int]] = {}
    for objid, pid in holders:
        by_job.setdefault(int(objid), []).append(pid)
    for name in sources:
        assert len(by_job.get(_key(f"fetch:{name}") & 0xFFFFFFFF, [])) == 1, f"fetch:{name} has no single holder"
    # and the start-up fetch ran once per source, not once per instance (the shortest interval is 2 min)
    times = {name: sum(name in cycle for cycle in fetched) for name in sources}
    assert all(n <= 1 for n in times.values()), times
    assert sum(times.values()) >= 1


async def _next_caption(ws: websockets.ClientConnection, timeout: float = 10) -> dict:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if frame.get("type") == "caption":
            return frame


async def _stream_utterance(ws: websockets.ClientConnection, text: str) -> list[dict]:
    await ws.send(json.dumps({"type": "utterance", "text": text}))
    frames = []
    while not frames or frames[-1]["type"] not in ("decision", "error"):
        frames.append(json.loads(await asyncio.wait_for(ws.recv(), 15)))
    return frames


async def test_a_caption_made_on_a_reaches_websockets_through_nginx_and_on_b(cluster):
    s = _session(cluster.nginx.url)
    hud = f"/hud/{s['id']}/ws"
    watch = ["trendlens.hud", f"token.{s['token']}"]
    stream = f"/v1/sessions/{s['id']}/stream"
    async with websockets.connect(_ws(cluster.nginx.url) + hud, subprotocols=watch, open_timeout=10) as via_nginx, \
            websockets.connect(_ws(cluster.b.url) + hud, subprotocols=watch, open_timeout=10) as on_b, \
            websockets.connect(_ws(cluster.b.url) + stream, additional_headers=AUTH, open_timeout=10) as stream_b:
        said = await asyncio.to_thread(_say, cluster.a.url, s["id"], SPOKEN)
        assert said["captions"], said
        shown = said["captions"][0]
        for ws in (via_nginx, on_b, stream_b):  # the HUD pages, and the session's stream socket on B
            got = await _next_caption(ws)
            assert (got["session_id"], got["topic_id"], got["text"]) == (s["id"], shown["topic_id"], shown["text"])

    # the session is driven over its stream WebSocket too, through nginx and on B
    async with websockets.connect(_ws(cluster.nginx.url) + stream, additional_headers=AUTH, open_timeout=10) as ws:
        frames = await _stream_utterance(ws, "哪吒2票房破百亿了你们去看了没")
        assert frames[-1]["type"] == "decision", frames
    async with websockets.connect(_ws(cluster.b.url) + stream, additional_headers=AUTH, open_timeout=10) as ws:
        frames = await _stream_utterance(ws, "Did you see the robots dancing at the Spring Festival Gala?")
        assert frames[-1]["type"] == "decision", frames
    # every decision, wherever it was made, is in the session's one history
    # (their lengths: the words themselves are not kept by default)
    assert [d["decision"]["chars"] for d in _history(cluster.b.url, s["id"])] == [len(t) for t in (
        SPOKEN, "哪吒2票房破百亿了你们去看了没", "Did you see the robots dancing at the Spring Festival Gala?")]


async def test_an_erase_on_a_closes_the_session_s_socket_on_b_and_nothing_of_it_answers_anywhere(cluster):
    s = _session(cluster.a.url)
    stream = f"/v1/sessions/{s['id']}/stream"
    async with websockets.connect(_ws(cluster.b.url) + stream, additional_headers=AUTH, open_timeout=10) as on_b:
        frames = await _stream_utterance(on_b, SPOKEN)  # B holds the session, its window and its encodes now
        assert frames[-1]["type"] == "decision", frames
        started = time.monotonic()
        erased = await asyncio.to_thread(httpx.delete, cluster.a.url + f"/v1/sessions/{s['id']}", headers=AUTH,
                                         timeout=10)
        assert erased.status_code == 204
        with pytest.raises(websockets.ConnectionClosed):
            async with asyncio.timeout(3):
                while True:
                    await on_b.recv()
        assert (on_b.close_code, on_b.close_reason) == (4410, "session erased")
        assert time.monotonic() - started < 3
    for url in (cluster.a.url, cluster.b.url, cluster.nginx.url):  # B, too, no longer answers from its memory
        read = httpx.get(url + f"/v1/sessions/{s['id']}/captions?all=true", headers=AUTH, timeout=10)
        said = httpx.post(url + f"/v1/sessions/{s['id']}/utterances", json={"text": SPOKEN}, headers=AUTH,
                          timeout=10)
        again = httpx.delete(url + f"/v1/sessions/{s['id']}", headers=AUTH, timeout=10)
        assert [read.status_code, said.status_code, again.status_code] == [404, 404, 404], url


def test_a_topic_ingested_on_a_is_read_and_captioned_on_b(cluster):
    topic = {"id": "cluster-1", "title": "量子豆腐脑全国大赛今晚决赛", "summary": "synthetic, for this test"}
    r = httpx.post(cluster.a.url + "/v1/topics", json=[topic], headers=AUTH, timeout=30)
    assert r.status_code == 201, r.text
    topic_id = r.json()["ids"][0]
    got = httpx.get(cluster.b.url + f"/v1/topics/{topic_id}", headers=AUTH, timeout=10)
    assert got.status_code == 200 and got.json()["title"] == topic["title"]
    mention = "量子豆腐脑全国大赛你们看了吗今晚决赛"
    on_a = _say(cluster.a.url, _session(cluster.a.url)["id"], mention)  # A, which indexed it at once
    assert on_a["captions"] and on_a["captions"][0]["topic_id"] == topic_id, on_a
    # B re-indexes once it sees the newer cycle in the shared store (TRENDLENS_INDEX_POLL_S)
    deadline = time.monotonic() + 15
    while True:
        said = _say(cluster.b.url, _session(cluster.b.url)["id"], mention)
        if said["captions"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert said["captions"] and said["captions"][0]["topic_id"] == topic_id, said


def _kill_while_holding_the_session(cluster: Cluster, session_id: str) -> float:
    """SIGKILL A while utterances of the session run on it and its Redis lock is held; the kill's time.

    Four clients keep A deciding for the session, so the lock is held nearly all the time; a kill
    that still lands between two holders (the lock gone with it) is tried again on a restarted A."""
    import redis

    lock = f"trendlens:session:{session_id}:lock"
    admin = redis.Redis.from_url(cluster.redis_url)
    try:
        for _ in range(3):
            stop = threading.Event()

            def talk(stop: threading.Event) -> None:
                with httpx.Client(timeout=30) as c:
                    while not stop.is_set():
                        try:
                            c.post(cluster.a.url + f"/v1/sessions/{session_id}/utterances", headers=AUTH,
                                   json={"text": "过年回家又被催婚了真的受不了"})
                        except httpx.HTTPError:
                            return

            talkers = [threading.Thread(target=talk, args=(stop,), daemon=True) for _ in range(4)]
            for t in talkers:
                t.start()
            deadline = time.monotonic() + 10
            while not admin.exists(lock) and time.monotonic() < deadline:
                time.sleep(0.005)
            cluster.a.kill()
            killed_at = time.monotonic()
            held = bool(admin.exists(lock))
            stop.set()
            for t in talkers:
                t.join(timeout=10)
            if held:
                return killed_at
            cluster.a.start()
    finally:
        admin.close()
    raise AssertionError("A never died holding the session's lock: the lapse was not exercised")


def test_kill_9_of_a_mid_utterance_and_the_session_carries_on(cluster):
    s = _session(cluster.nginx.url)
    before = _say(cluster.a.url, s["id"], SPOKEN)
    assert before["captions"], before
    committed = httpx.post(cluster.a.url + "/v1/topics", headers=AUTH, timeout=30,
                           json=[{"id": "cluster-2", "title": "断电前最后一条热搜"}]).json()["ids"][0]

    # kill -9 of A mid-utterance, while it holds the session's Redis lock
    killed_at = _kill_while_holding_the_session(cluster, s["id"])

    # through nginx, which finds A refusing and passes the request on to B (proxy_next_upstream)
    after = _say(cluster.nginx.url, s["id"], "哪吒2票房破百亿了你们去看了没", timeout=60)
    waited = time.monotonic() - killed_at
    assert waited <= LOCK_TIMEOUT_S + 5, f"B answered {waited:.1f} s after the kill"
    assert after["decision"] is not None
    for _ in range(3):  # least_conn takes equal instances in turn: at least one of these is offered to A
        assert httpx.get(cluster.nginx.url + "/v1/topics?limit=1", headers=AUTH, timeout=10).status_code == 200
    assert "Connection refused) while connecting to upstream" in cluster.nginx.error_log()
    assert f"127.0.0.1:{cluster.a.port}" in cluster.nginx.error_log()
    _say(cluster.b.url, s["id"], "Did you see the robots dancing at the Spring Festival Gala?")

    on_b = _settled_history(cluster.b.url, s["id"])
    cluster.a.start()  # the same port and data dir
    on_a = _history(cluster.a.url, s["id"])
    assert on_a == on_b
    # lengths: the words are not kept by default; a caption put up by the clock was said by no line (0)
    spoken = [d["decision"]["chars"] for d in on_a if d["decision"]["chars"]]
    assert spoken[0] == len(SPOKEN) and spoken[-2:] == [
        len("哪吒2票房破百亿了你们去看了没"), len("Did you see the robots dancing at the Spring Festival Gala?")]
    assert before["captions"][0]["text"] in [d.get("text") for d in on_a]  # the caption A made before the kill
    # nothing committed is lost: the restarted A indexes what B has, the topic A stored before dying included
    assert httpx.get(cluster.a.url + f"/v1/topics/{committed}", headers=AUTH).status_code == 200
    deadline = time.monotonic() + 10
    while True:
        counts = [httpx.get(i.url + "/readyz").json()["topics"] for i in (cluster.a, cluster.b)]
        if counts[0] == counts[1] or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert counts[0] == counts[1]
