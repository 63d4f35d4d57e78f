"""Load test: N concurrent glasses sessions over the WebSocket, loopback only, bounded in time.

Starts `trendlens serve --offline` on 127.0.0.1 (or uses --url), opens N sessions, and
has each send a realistic utterance every 2–3 s. Reports utterance→decision latency
(the server's answer to each final utterance, caption or quiet) p50/p99, errors, the
server's RSS, and the histogram bound that holds 99 % of the server's rank calls (encode wait
included: what of the tail is the model's queue). With --ramp it steps N up and reports the
largest N held at p99 <= 500 ms.

The slowest decision, read from the server: p90 and max beside p50 / p99, its event loop's wake-ups
later than 50 ms and the bound of its longest stall in the window (`trendlens_event_loop_lag_seconds`),
its full collections (`trendlens_gc_pause_seconds`), and over WebSocket each decision's stages (the
decision frame's `stages_ms`): their p50 / p99 / max and their mean in the slowest 1 % (`tail.py`).

With --devsets (real data, ../shared/devsets), the started server also holds both languages'
dev topics, and each of the N speakers says, every 2–3 s, one dev line in a fresh session
(a mention from relevance.json or a small-talk line from chitchat.json, alternating, report
half): the table then adds the right-caption rate on mentions and the caption rate on small
talk under that load. Run it once with --sessions 2 for the unloaded figure. Each line goes down the
stream socket of its own fresh session, closed after its decision; the latency is from the line sent on
the open socket to its decision frame, and the stage tables are read as above. `--over http` posts the
line to the utterance route instead (its round trip).

No two utterances of a run share their text: the speakers draw from one pool, each of the 985 dev
lines once as written, then again behind a spoken opener ("嗯，", "so, ", ...:
`harness.devsets.distinct`), as a real table never repeats another's line word for word.
Every row reports the share of rank calls the query-vector cache answered (no encode), and the
share of lines said behind an opener; a repeated line would be a cache hit, not capacity.

    python scripts/bench/concurrent_sessions.py --sessions 100 --duration 60
    python scripts/bench/concurrent_sessions.py --devsets --sessions 100 --duration 60
    python scripts/bench/concurrent_sessions.py --ramp 100,150,200,300 --duration 40
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import websockets
from tail import slowest_stages

from harness import free_port, pct
from harness.devsets import distinct

ROOT = Path(__file__).resolve().parents[2]
KEY = "load-test-key"
CONVERSATIONS = ROOT / "agent" / "synthetic" / "conversations"
LINES = [json.loads(line)["text"] for name in ("spring_festival_dinner.jsonl", "english_dinner.jsonl")
         for line in (CONVERSATIONS / name).read_text(encoding="utf-8").splitlines() if line]


FILLERS = ["对吧", "你说是不是", "哈哈哈", "真的假的", "you know", "right?", "I guess", "no way", "我跟你说",
           "anyway", "说实话", "seriously"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def say_on(ws: Any, text: str, lat: list[float], errors: list[str], server: list[float],
                 stages: list[dict[str, float]]) -> dict[str, Any] | None:
    """Say one final line on an open stream socket; its decision (None when an error frame answered),
    with the round trip, the server's own time and its stages recorded."""
    sent = time.perf_counter()
    await ws.send(json.dumps({"type": "utterance", "text": text, "final": True}))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 15))
        if frame["type"] == "decision":
            lat.append((time.perf_counter() - sent) * 1000)
            server.append(frame.get("elapsed_ms", float("nan")))
            if frame.get("stages_ms"):
                stages.append(frame["stages_ms"])
            return frame.get("decision") or {}
        if frame["type"] == "error":
            errors.append(frame["message"])
            return None


async def one_session(http: httpx.AsyncClient, url: str, headers: dict, stop_at: float, lat: list[float],
                      errors: list[str], server: list[float], stages: list[dict[str, float]]) -> None:
    s = (await http.post(url + "/v1/sessions", json={}, headers=headers)).json()
    ws_url = url.replace("http", "ws", 1) + f"/v1/sessions/{s['id']}/stream"
    rng = random.Random(s["id"])
    await asyncio.sleep(rng.uniform(0, 2.5))  # sessions do not all speak in step
    try:
        async with websockets.connect(ws_url, additional_headers=headers, open_timeout=20, max_queue=64) as ws:
            while time.monotonic() < stop_at:
                # real speech never repeats word for word: vary every utterance so no cache flatters us
                text = f"{rng.choice(LINES)} {rng.choice(FILLERS)} {rng.randrange(10**6)}"
                await say_on(ws, text, lat, errors, server, stages)
                await asyncio.sleep(rng.uniform(2.0, 3.0))
    except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
        errors.append(f"{type(exc).__name__}: {exc}")


DEVSETS = ROOT.parent / "shared" / "devsets"


def dev_lines() -> list[tuple[str, list[str] | None]]:
    """(text, relevant ids) for mentions, (text, None) for small talk; report half, alternating."""
    rel = json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8"))
    chat = json.loads((DEVSETS / "chitchat.json").read_text(encoding="utf-8"))
    mentions = [(q["text"], q["relevant"]) for lang in ("zh", "en") for q in rel[lang]["queries"][1::2]]
    talk: list[tuple[str, list[str] | None]] = [(x, None) for lang in ("zh", "en") for x in chat[lang][1::2]]
    random.Random(5).shuffle(mentions)
    random.Random(5).shuffle(talk)
    out: list[tuple[str, list[str] | None]] = []
    for i in range(max(len(mentions), len(talk))):
        out += ([mentions[i % len(mentions)]] if i < len(mentions) else []) + ([talk[i]] if i < len(talk) else [])
    return out


def seed_devsets(data_dir: Path) -> None:
    """Put the dev topics in the server's store, and this checkout's topic vectors in its cache."""
    import shutil

    from agent.models import Topic
    from agent.store import SQLiteStore

    rel = json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8"))
    topics = [Topic(source=t["source"], item_id=t["id"], ref=t["id"], title=t["title"], lang=lang)
              for lang in ("zh", "en") for t in rel[lang]["topics"]]
    store = SQLiteStore(data_dir / "trendlens.sqlite3")
    store.ingest(topics)
    store.close()
    cached = ROOT / "data" / "embeddings.sqlite3"
    if cached.exists():
        shutil.copy(cached, data_dir / "embeddings.sqlite3")


def _ms(value: float) -> str:
    """A latency for the table; "-" where none was measured (a dev-line speaker reads only the round trip)."""
    return "-" if math.isnan(value) else f"{value:.0f}"


async def one_speaker(http: httpx.AsyncClient, url: str, headers: dict, stop_at: float, lat: list[float],
                      errors: list[str], server: list[float], stages: list[dict[str, float]],
                      lines: list[tuple[str, list[str] | None]], k: int, draw: Iterator[tuple[int, int, str]],
                      outcomes: list[tuple[bool, bool, bool, bool]], over: str = "ws") -> None:
    """Every 2-3 s, the next line of the run's pool in a fresh session: (is mention, captioned, right
    topic, said behind an opener). `draw` is shared by every speaker, so no line is said twice.

    Over "ws" each line goes down its session's own stream socket, closed after its decision: the
    figure is the decision's round trip once the socket is open (glasses connect before anyone
    speaks), with the server's own time and stages. Over "http" it is the utterance POST's round trip,
    on this speaker's kept-alive connection."""
    rng = random.Random(k)
    await asyncio.sleep(rng.uniform(0, 2.5))
    while time.monotonic() < stop_at:
        index, again, text = next(draw)
        relevant = lines[index][1]
        try:
            # a fresh session per line: one mention per fresh session, as the live evaluation does
            s = (await http.post(url + "/v1/sessions", json={"profile": "even-g1"}, headers=headers)).json()
            if over == "ws":
                ws_url = url.replace("http", "ws", 1) + f"/v1/sessions/{s['id']}/stream"
                async with websockets.connect(ws_url, additional_headers=headers, open_timeout=30,
                                              max_queue=64) as ws:
                    d = await say_on(ws, text, lat, errors, server, stages)
            else:
                d = await post_line(http, url + f"/v1/sessions/{s['id']}/utterances", headers, text, lat, errors)
            if d is not None:
                shown = bool(d.get("show"))
                outcomes.append((relevant is not None, shown,
                                 shown and relevant is not None and d.get("topic_id") in relevant, again > 0))
        except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
            errors.append(f"{type(exc).__name__}: {exc}")
        await asyncio.sleep(rng.uniform(2.0, 3.0))


async def post_line(http: httpx.AsyncClient, url: str, headers: dict, text: str, lat: list[float],
                    errors: list[str]) -> dict[str, Any] | None:
    """Post one final line to the utterance route; its decision (None when refused), the round trip recorded."""
    sent = time.perf_counter()
    r = await http.post(url, headers=headers, json={"text": text, "final": True})
    if r.status_code != 200:
        errors.append(f"HTTP {r.status_code}: {r.text[:200]}")
        return None
    lat.append((time.perf_counter() - sent) * 1000)
    return r.json().get("decision") or {}


METRICS_TOKEN = "load-test-metrics"  # the started server's TRENDLENS_METRICS_TOKEN (/metrics takes no client key)


def metrics_text(url: str) -> str:
    return httpx.get(url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text


def shed_count(url: str) -> tuple[float, float]:
    """(rank calls answered lexically because their encode would have missed its deadline, all rank calls)."""
    text = metrics_text(url)
    shed = re.search(r"^trendlens_ranking_shed_total (\S+)$", text, re.M)
    calls = re.search(r"^trendlens_ranking_seconds_count (\S+)$", text, re.M)
    return (float(shed.group(1)) if shed else 0.0, float(calls.group(1)) if calls else 0.0)


def cache_hits(url: str) -> float:
    """Rank calls whose query vectors all came from the server's query-vector cache (no encode)."""
    found = re.search(r"^trendlens_query_cache_hits_total (\S+)$", metrics_text(url), re.M)
    return float(found.group(1)) if found else float("nan")


def ranking_buckets(url: str) -> dict[float, float]:
    """The server's rank-call latency histogram (encode wait included): upper bound (s) -> calls at or under it."""
    text = metrics_text(url)
    return {float(m.group(1)): float(m.group(2)) for m in
            re.finditer(r'^trendlens_ranking_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)}


def loop_and_gc(url: str) -> dict[str, float]:
    """The server's event-loop wake-ups by lateness bound (s -> count at or under it) and its full collections
    (count, seconds); empty on a server from before these series."""
    text = metrics_text(url)
    out = {f"lag_le_{m.group(1)}": float(m.group(2)) for m in
           re.finditer(r'^trendlens_event_loop_lag_seconds_bucket\{le="([^"]+)"\} (\S+)$', text, re.M)}
    for kind in ("count", "sum"):
        found = re.search(rf'^trendlens_gc_pause_seconds_{kind}\{{generation="2"\}} (\S+)$', text, re.M)
        if found:
            out[f"gc2_{kind}"] = float(found.group(1))
    return out


def stall_figures(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """Between two scrapes: wake-ups later than 50 ms, the bound that holds the latest one, full collections."""
    if not after:
        return {}
    lag = {float(k[7:]): after[k] - before.get(k, 0.0) for k in after if k.startswith("lag_le_")}
    total = lag.get(float("inf"), 0.0)
    return {"loop_wakeups_over_50ms": total - lag.get(0.05, 0.0),
            "loop_longest_stall_within_ms": 1000 * min((le for le, n in lag.items() if n >= total), default=math.nan),
            "full_collections": after.get("gc2_count", 0.0) - before.get("gc2_count", 0.0),
            "full_collections_ms": round(1000 * (after.get("gc2_sum", 0.0) - before.get("gc2_sum", 0.0)), 1)}


def ranking_p99(before: dict[float, float], after: dict[float, float]) -> float:
    """The smallest histogram bound that holds 99 % of the rank calls made between two scrapes (s)."""
    calls = {le: after[le] - before.get(le, 0.0) for le in after}
    total = calls.get(float("inf"), 0.0)
    return min((le for le, n in calls.items() if total and n >= 0.99 * total), default=float("nan"))


async def run_level(url: str, n: int, duration: float, devsets: bool = False, over: str = "ws") -> dict:
    headers = {"Authorization": f"Bearer {KEY}"}
    lat: list[float] = []
    server: list[float] = []
    errors: list[str] = []
    stages: list[dict[str, float]] = []
    outcomes: list[tuple[bool, bool, bool, bool]] = []
    async with contextlib.AsyncExitStack() as clients:
        # each speaker's HTTP client before the clock starts: making one costs the load generator 35 ms of
        # CPU (its TLS context, even for plain HTTP), and a hundred made while others speak had the
        # generator answer its first seconds' replies late (p99 730-870 ms where it is 230 after them)
        speakers = [await clients.enter_async_context(httpx.AsyncClient(timeout=30)) for _ in range(n)]
        stop_at = time.monotonic() + duration
        if devsets:
            lines = dev_lines()
            draw = distinct([text for text, _ in lines])
            await asyncio.gather(*(one_speaker(speakers[k], url, headers, stop_at, lat, errors, server, stages,
                                               lines, k, draw, outcomes, over) for k in range(n)))
        else:
            await asyncio.gather(*(one_session(speakers[k], url, headers, stop_at, lat, errors, server, stages)
                                   for k in range(n)))
    out = {"sessions": n, "utterances": len(lat), "p50_ms": pct(lat, 0.5), "p90_ms": pct(lat, 0.9),
           "p99_ms": pct(lat, 0.99), "max_ms": max(lat, default=math.nan), "stages": stages,
           "server_p50_ms": pct(server, 0.5), "server_p99_ms": pct(server, 0.99),
           "errors": len(errors), "first_error": errors[0] if errors else None}
    if devsets:
        mentions = [o for o in outcomes if o[0]]
        talk = [o for o in outcomes if not o[0]]
        out["mentions"] = len(mentions)
        out["right_caption"] = sum(o[2] for o in mentions) / max(len(mentions), 1)
        out["small_talk_captioned"] = sum(o[1] for o in talk) / max(len(talk), 1)
        out["with_opener_pct"] = round(100 * sum(o[3] for o in outcomes) / max(len(outcomes), 1), 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--duration", type=float, default=60, help="seconds per level (max 300)")
    ap.add_argument("--ramp", help="comma-separated session counts, e.g. 100,200,300")
    ap.add_argument("--url", help="an already running server (must accept the key load-test-key, and "
                                  "the metrics token load-test-metrics)")
    ap.add_argument("--devsets", action="store_true", help="speak real dev lines and score the captions (see above)")
    ap.add_argument("--over", choices=("ws", "http"), default="ws",
                    help="with --devsets: each line on a socket opened before the clock (ws), or its own "
                         "session made and spoken to over HTTP while the clock runs (http)")
    ap.add_argument("--embedder", help="TRENDLENS_EMBEDDER for the started server (default: the offline default)")
    args = ap.parse_args()
    duration = min(args.duration, 300)
    levels = [int(x) for x in args.ramp.split(",")] if args.ramp else [args.sessions]
    proc = None
    url = args.url
    if url is None:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        data_dir = tempfile.mkdtemp(prefix="tl-load-")
        if args.devsets:
            seed_devsets(Path(data_dir))
        env = {**os.environ, "TRENDLENS_DATA_DIR": data_dir, "TRENDLENS_API_KEYS": KEY,
               "TRENDLENS_RATE_LIMIT_PER_S": "100000", "TRENDLENS_RATE_LIMIT_BURST": "100000",
               "TRENDLENS_METRICS_TOKEN": METRICS_TOKEN}
        if args.embedder:
            env["TRENDLENS_EMBEDDER"] = args.embedder
        proc = subprocess.Popen([sys.executable, "-m", "agent", "serve", "--offline", "--port", str(port)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=1).json().get("topics"):
                    break
            except (httpx.HTTPError, ValueError):
                pass
            if time.monotonic() > deadline:
                proc.kill()
                print("server did not become ready", file=sys.stderr)
                return 1
            time.sleep(0.3)
        if args.devsets:
            # the first fetch cycle re-indexes and re-clusters a few thousand topics: measure after it
            seen, stable_since = -1, time.monotonic()
            while time.monotonic() - stable_since < 5 and time.monotonic() < deadline + 120:
                n = int(httpx.get(url + "/readyz", timeout=5).json().get("topics") or 0)
                if n != seen:
                    seen, stable_since = n, time.monotonic()
                time.sleep(0.5)
    results = []
    try:
        for n in levels:
            shed_before, ranked_before, hits_before = shed_count(url), ranking_buckets(url), cache_hits(url)
            stalls_before = loop_and_gc(url)
            r = asyncio.run(run_level(url, n, duration, args.devsets, args.over))
            r.update(stall_figures(stalls_before, loop_and_gc(url)))
            # utterances ranked lexically because their encode would have missed its deadline (load shedding)
            shed_after = shed_count(url)
            # the rank call alone, server-side: what of the p99 is the model's queue, and what is around it
            r["ranking_p99_bound_ms"] = 1000 * ranking_p99(ranked_before, ranking_buckets(url))
            calls = max(1.0, shed_after[1] - shed_before[1])
            r["shed_pct"] = round(100 * (shed_after[0] - shed_before[0]) / calls, 1)
            # rank calls the query-vector cache answered: with distinct lines this stays near 0
            r["cache_hit_pct"] = round(100 * (cache_hits(url) - hits_before) / calls, 1)
            if proc is not None:
                r["server_rss_mb"] = round(rss_mb(proc.pid), 1)
            results.append(r)
            print(json.dumps({k: v for k, v in r.items() if k != "stages"}), flush=True)
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    print("\n| sessions | utterances | p50 ms | p99 ms | server-side p50 / p99 ms | rank call p99 within ms "
          "| errors | ranked lexically (shed) | answered by the query cache | server RSS MB |\n"
          "|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['sessions']} | {r['utterances']} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | "
              f"{_ms(r['server_p50_ms'])} / {_ms(r['server_p99_ms'])} | {r['ranking_p99_bound_ms']:.0f} | "
              f"{r['errors']} | {r['shed_pct']} % | {r['cache_hit_pct']} % | {r.get('server_rss_mb', '')} |")
    if args.devsets:
        print("\n| sessions | mentions | right caption | small talk captioned | lines behind an opener |\n"
              "|---|---|---|---|---|")
        for r in results:
            print(f"| {r['sessions']} | {r['mentions']} | {r['right_caption']:.3f} | {r['small_talk_captioned']:.3f} "
                  f"| {r['with_opener_pct']} % |")
    print("\n| sessions | p50 / p90 / p99 / max ms | loop wake-ups over 50 ms | longest stall within ms "
          "| full collections (ms in all) |\n|---|---|---|---|---|")
    for r in results:
        print(f"| {r['sessions']} | {r['p50_ms']:.0f} / {r['p90_ms']:.0f} / {r['p99_ms']:.0f} / {r['max_ms']:.0f} | "
              f"{r.get('loop_wakeups_over_50ms', '-')} | {r.get('loop_longest_stall_within_ms', '-')} | "
              f"{r.get('full_collections', '-')} ({r.get('full_collections_ms', '-')}) |")
        if r["stages"]:
            print(f"\nserver-side stages, {r['sessions']} sessions (ms):\n" + slowest_stages(r["stages"]))
    held = [r["sessions"] for r in results if r["p99_ms"] <= 500 and r["errors"] == 0]
    if held:
        print(f"\nlargest session count held at p99 <= 500 ms with zero errors: {max(held)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
