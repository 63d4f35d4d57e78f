"""Running workflows: a bad file beside good ones, step policies (timeout, retries), recorded runs,
the gate stopping a run quietly, a workflow's output."""

from __future__ import annotations

import asyncio
import shutil

from agent.engine.runner import WorkflowEngine
from agent.engine.steps import STEPS, Step, _Params
from agent.errors import FetchError
from agent.runtime import Runtime
from agent.settings import Settings

from .helpers import WORKFLOWS, write


def test_a_bad_file_does_not_stop_the_others(runtime, tmp_path):
    folder = tmp_path / "wf"
    folder.mkdir()
    shutil.copy(WORKFLOWS / "live_captions.yaml", folder)
    write(folder, "broken.yaml", "name: broken\ntrigger: manual\nsteps:\n  - nope\n")
    engine = WorkflowEngine(runtime.deps, folder)
    assert list(engine.workflows) == ["live_captions"]
    assert "broken.yaml:4" in engine.errors["broken.yaml"]


async def test_step_timeout_and_retry_are_applied_and_runs_recorded(runtime, tmp_path, monkeypatch):
    calls = {"flaky": 0}

    async def flaky(ctx, value, p):
        calls["flaky"] += 1
        if calls["flaky"] < 3:
            raise FetchError("x", "transient")
        return value, "third time lucky"

    async def slow(ctx, value, p):
        await asyncio.sleep(5)
        return value, "never"

    monkeypatch.setitem(STEPS, "flaky", Step("flaky", _Params, flaky, "test"))
    monkeypatch.setitem(STEPS, "slow", Step("slow", _Params, slow, "test"))
    folder = tmp_path / "wf"
    folder.mkdir()
    write(folder, "ok.yaml", "name: ok\ntrigger: manual\nsteps:\n  - {use: flaky, retries: 2, backoff_s: 0}\n")
    write(folder, "late.yaml", "name: late\ntrigger: manual\nsteps:\n  - {use: slow, timeout_s: 0.1}\n  - digest\n")
    engine = WorkflowEngine(runtime.deps, folder)
    ok = await engine.run("ok")
    assert ok.status == "ok" and ok.steps[0].attempts == 3 and ok.steps[0].detail == "third time lucky"
    late = await engine.run("late")
    assert late.status == "error" and late.error == "slow: timed out after 0.1s" and len(late.steps) == 1
    runs = engine.recent_runs()
    assert [(r["workflow"], r["status"]) for r in runs] == [("late", "error"), ("ok", "ok")]


async def test_gate_stops_a_run_quietly(tmp_path):
    from agent.ranking import HashEmbedder

    runtime = Runtime.build(Settings(data_dir=tmp_path / "data", offline=True, workflows_dir=WORKFLOWS),
                            embedder=HashEmbedder())
    await runtime.collector.cycle()
    await runtime.start()
    engine = runtime.engine
    session, _ = runtime.sessions.create("hud-web")
    result = await runtime.handle_utterance(session, "嗯")  # too little speech to decide on
    assert result.captions == [] and result.decision is not None and result.decision.reason == "not_enough_speech"
    run = engine.recent_runs(1)[0]
    assert run["status"] == "stopped" and run["steps"][-1]["detail"] == "not_enough_speech"
    await runtime.aclose()


async def test_digest_workflow_writes_its_file(runtime, tmp_path):
    await runtime.collector.cycle()
    engine = WorkflowEngine(runtime.deps, WORKFLOWS)
    record = await engine.run("daily_digest")
    assert record.status == "ok", record.error
    files = list((runtime.settings.store.data_dir / "digests").glob("*.md"))
    assert len(files) == 1 and files[0].read_text(encoding="utf-8").startswith("# 热梗透视镜 TrendLens digest")

