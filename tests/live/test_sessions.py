"""Every decision says where its time went (its record, /metrics, the socket's frame), and what would make
the slowest one slow is read and frozen before the first line."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from agent.api import create_app
from harness.apps import AUTH, make_runtime

LINE = "春晚机器人扭秧歌太好笑了"  # a line about a synthetic topic: ranked, gated, captioned, pushed
# what every decision on this path passes through (encode: the line is new to the query cache)
STAGES = {"lock", "encode", "rank", "score", "gate", "caption", "push", "run_write", "store_write", "decision"}


def _stage_counts(text: str) -> dict[str, float]:
    return {s.labels["stage"]: s.value for fam in text_string_to_metric_families(text)
            for s in fam.samples if s.name == "trendlens_decision_stage_seconds_count"}


async def test_a_decision_records_each_stage_it_passed_through(runtime):
    session, _ = runtime.sessions.create("even-g1")
    result = await runtime.handle_utterance(session, LINE)
    assert result.decision is not None and result.decision.show
    assert STAGES <= result.stages_ms.keys()
    assert all(ms >= 0 for ms in result.stages_ms.values())
    # the whole is no shorter than any one stage on its clock
    assert max(v for k, v in result.stages_ms.items() if k != "decision") <= result.stages_ms["decision"]
    counts = _stage_counts(runtime.metrics.render())
    assert all(counts[stage] == 1 for stage in STAGES)


async def test_a_partial_transcript_is_no_decision_and_adds_no_stages(runtime):
    session, _ = runtime.sessions.create("even-g1")
    await runtime.handle_utterance(session, "春晚机器", final=False)
    assert _stage_counts(runtime.metrics.render()).get("decision", 0) == 0


def test_the_socket_frame_carries_the_stages_and_the_send_is_timed(tmp_path: Path):
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with TestClient(app) as client:
        s = client.post("/v1/sessions", json={"profile": "even-g1"}, headers=AUTH).json()
        with client.websocket_connect(f"/v1/sessions/{s['id']}/stream", headers=dict(AUTH)) as ws:
            ws.send_json({"type": "utterance", "text": LINE, "final": True})
            frames = [ws.receive_json()]
            while frames[-1]["type"] != "decision":
                frames.append(ws.receive_json())
        assert STAGES <= frames[-1]["stages_ms"].keys()
        metrics = client.get("/metrics", headers=AUTH).text
    assert _stage_counts(metrics)["socket_send"] == 1
    assert "trendlens_event_loop_longest_stall_seconds" in metrics
    assert 'trendlens_gc_pause_seconds_count{generation="0"}' in metrics


FRESH_START = """
import asyncio, gc, sys
from pathlib import Path
from agent.ranking import HashEmbedder, bridges
from agent.runtime import Runtime
from agent.settings import Settings

async def main():
    rt = Runtime.build(Settings(data_dir=Path(sys.argv[1]), offline=True), embedder=HashEmbedder())
    await rt.collector.cycle()
    await rt.start()
    from pypinyin import phrases_dict
    tables = bridges.dictionary()  # what the service read at start: returned, not read again
    tracked = {id(o) for o in gc.get_objects()}  # the frozen generation is not among them
    print(sorted(name for name, table in (("cedict", tables.names), ("pypinyin", phrases_dict.phrases_dict))
                 if id(table) in tracked))
    await rt.aclose()

asyncio.run(main())
"""


def test_what_an_english_line_reads_is_read_at_start_and_frozen(tmp_path: Path):
    """CC-CEDICT's and pypinyin's tables, read on the first English line after start-up's freeze, were
    walked by every full collection (84-784 ms each): the hot path's p99. A service started in a fresh
    process (as nothing else has read them) reads them before its first build, which freezes them."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", FRESH_START, str(tmp_path)], capture_output=True, text=True,
                          timeout=300, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"  # no table left where a collection walks it
