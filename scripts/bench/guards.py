"""What the hostile-client guards add to one utterance: the per-session bucket, the frame check,
the bounded clean-up, next to an utterance's whole decision.

Each guard is timed on its own (in-process buckets, as without Redis) with utterances of the real
chitchat dev set (../shared/devsets/chitchat.json) when present, else a fixed synthetic sentence;
the whole decision is one `POST /v1/sessions/{id}/utterances` through the app in process, over the
synthetic demo snapshot with the tests' hash embedder (the guards, not the model, are measured).

    .venv/bin/python scripts/bench/guards.py [--rounds 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from agent.api import create_app
from agent.api.security import RateLimiter
from agent.api.throttle import session_bucket, take_all
from agent.live.sessions import clean_utterance
from harness.apps import AUTH, make_runtime

CHITCHAT = Path(__file__).resolve().parents[3] / "shared" / "devsets" / "chitchat.json"


def _texts() -> tuple[list[str], str]:
    if CHITCHAT.exists():
        data = json.loads(CHITCHAT.read_text(encoding="utf-8"))
        items = data if isinstance(data, list) else next(v for v in data.values() if isinstance(v, list))
        texts = [str(i["text"] if isinstance(i, dict) else i) for i in items]
        return [t for t in texts if t.strip()], f"{CHITCHAT.name} (real)"
    return ["哎你们昨晚几点睡的，我看春晚看到一点多"], "one synthetic sentence"


def _per_call_us(fn, rounds: int) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    for i in range(rounds):
        fn(i)
    return (time.perf_counter() - started) / rounds * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    texts, origin = _texts()
    limiter = RateLimiter(1e9, 10**9)
    frames = [json.dumps({"type": "utterance", "text": t}) for t in texts]
    bucket_us = _per_call_us(lambda i: take_all([(limiter, session_bucket(f"s{i % 50}"))]), args.rounds)
    frame_us = _per_call_us(lambda i: len(frames[i % len(frames)].encode()), args.rounds)
    clean_us = _per_call_us(lambda i: clean_utterance(texts[i % len(texts)]), args.rounds)
    huge = "梗" * 1_000_000
    clean_huge_ms = _per_call_us(lambda i: clean_utterance(huge), 20) / 1000

    # the tests' hash embedder; limits out of the way: the decision is timed, not a 429
    runtime = make_runtime(Path(tempfile.mkdtemp(prefix="tl-bench-guards-")), rate_limit_per_s=1e6,
                           rate_limit_burst=10**6, session_rate_limit_per_s=1e6, session_rate_limit_burst=10**6)
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as client:
        sid = client.post("/v1/sessions", json={}, headers=AUTH).json()["id"]
        spent = []
        for i in range(min(200, args.rounds)):
            started = time.perf_counter()
            client.post(f"/v1/sessions/{sid}/utterances", json={"text": texts[i % len(texts)]}, headers=AUTH)
            spent.append((time.perf_counter() - started) * 1000)
    print(f"utterances: {len(texts)} from {origin}; {args.rounds} rounds")
    print(f"session bucket take: {bucket_us:.2f} µs; frame size check: {frame_us:.2f} µs; "
          f"clean-up: {clean_us:.2f} µs per utterance")
    print(f"clean-up of a 1,000,000-character text: {clean_huge_ms:.2f} ms")
    print(f"whole utterance over HTTP (hash test embedder): median {statistics.median(spent):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
