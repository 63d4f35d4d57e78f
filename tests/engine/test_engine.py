"""Workflow files: loading, validation with file:line, step policies, recorded runs, triggers."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agent.commands.cli import main
from agent.engine.runner import WorkflowEngine
from agent.engine.spec import SCHEMA_HEADER, WorkflowSpec, load_workflow, write_schema
from agent.engine.steps import STEPS, Step, _Params
from agent.engine.triggers import schedule_workflows
from agent.errors import FetchError
from agent.resources import workflows_dir
from agent.runtime import Runtime
from agent.settings import Settings

WORKFLOWS = workflows_dir()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def runtime(tmp_path) -> Runtime:
    return Runtime.build(Settings(data_dir=tmp_path / "data", offline=True, workflows_dir=tmp_path / "wf"))


def test_shipped_workflows_load_and_carry_the_schema_header():
    for name in ("live_captions", "refresh_sources", "daily_digest"):
        path = WORKFLOWS / f"{name}.yaml"
        assert path.read_text(encoding="utf-8").splitlines()[0] == SCHEMA_HEADER
        assert load_workflow(path, steps=STEPS).name == name


def test_schema_file_is_up_to_date(tmp_path):
    fresh = tmp_path / "schema.json"
    write_schema(fresh, STEPS)
    on_disk = json.loads((WORKFLOWS / "workflow.schema.json").read_text(encoding="utf-8"))
    assert on_disk == json.loads(fresh.read_text(encoding="utf-8")), "run `trendlens workflows schema`"


@pytest.mark.parametrize(("steps", "valid"), [
    (["gate", {"rank": {"top_k": 3}}, {"use": "push", "with": {"display": "hud"}, "timeout_s": 2}], True),
    ([{"rank": {"top_kk": 3}}], False),  # a misspelt parameter
    ([{"use": "digest", "with": {"format": "pdf"}}], False),  # a value the step does not know
    ([{"push": {"top_k": 3}}], False),  # another step's parameter
    (["teleport"], False),
])
def test_the_schema_checks_each_steps_parameters(steps, valid):
    import jsonschema
    import yaml

    schema = json.loads((WORKFLOWS / "workflow.schema.json").read_text(encoding="utf-8"))
    for path in WORKFLOWS.glob("*.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)
    doc = {"name": "x", "trigger": "manual", "steps": steps}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    assert (errors == []) is valid, errors


@pytest.mark.parametrize(("body", "line", "message"), [
    ("name: bad\ntrigger: manual\nsteps:\n  - gate\n", 4,
     "step 'gate' takes Candidates, but its trigger starts it from Start"),
    ("name: bad\ntrigger: {event: utterance}\nsteps:\n  - rank\n  - caption\n", 5,
     "step 'caption' takes Chosen, but the step before makes Candidates"),
    ("name: bad\ntrigger: manual\nsteps:\n  - digest\n  - push\n", 5,
     "step 'push' takes Captioned, but the step before makes DigestMade"),
])
def test_a_chain_that_does_not_connect_is_refused_before_it_runs(tmp_path, body, line, message):
    from agent.engine.spec import WorkflowError

    path = write(tmp_path, "bad.yaml", body)
    with pytest.raises(WorkflowError) as exc:
        load_workflow(path, steps=STEPS)
    assert str(exc.value) == f"{path}:{line}: {message}"


def test_short_and_long_step_forms():
    spec = WorkflowSpec.model_validate({"name": "x", "trigger": "manual", "steps": [
        "gate", {"rank": {"top_k": 3}}, {"use": "push", "with": {"display": "hud"}, "timeout_s": 2, "retries": 1}]})
    assert [(s.use, s.params) for s in spec.steps] == [
        ("gate", {}), ("rank", {"top_k": 3}), ("push", {"display": "hud"})]
    assert spec.steps[2].timeout_s == 2 and spec.steps[2].retries == 1


@pytest.mark.parametrize(("body", "line", "message"), [
    ("name: bad\ntrigger: manual\nsteps:\n  - rank: {top_k: 0}\n", 4, "top_k"),
    ("name: bad\ntrigger: manual\nsteps:\n  - gate\n  - teleport\n", 5, "unknown step 'teleport'; valid:"),
    ("name: bad\ntrigger: {cron: 'every day'}\nsteps: [gate]\n", 2, "crontab"),
    ("name: bad\ntrigger: manual\nsteps:\n  - rank: {top_k: [\n", 5, "invalid YAML"),
    ("name: Bad Name\ntrigger: manual\nsteps: [gate]\n", 1, "name"),
    ("name: bad\ntrigger: manual\nsteps: []\n", 3, "steps"),
])
def test_malformed_files_name_file_line_and_problem(tmp_path, body, line, message):
    from agent.engine.spec import WorkflowError

    path = write(tmp_path, "bad.yaml", body)
    with pytest.raises(WorkflowError) as exc:
        load_workflow(path, step_names={n: s.Params for n, s in STEPS.items()})
    text = str(exc.value)
    assert text.startswith(f"{path}:{line}:") and message in text and "\n" not in text


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


def test_interval_and_cron_workflows_become_scheduler_jobs(runtime):
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    engine = WorkflowEngine(runtime.deps, WORKFLOWS)
    ids = schedule_workflows(AsyncIOScheduler(), engine)
    assert sorted(ids) == ["workflow:daily_digest", "workflow:refresh_sources"]
    assert [w.name for w in engine.for_event("utterance")] == ["live_captions"]


def test_cli_validate_and_list(tmp_path, capsys):
    assert main(["workflows", "validate"]) == 0
    bad = write(tmp_path, "x.yaml", "name: x\ntrigger: manual\nsteps: [warp]\n")
    assert main(["workflows", "validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:3: unknown step 'warp'" in err and "Traceback" not in err


def test_cli_refuses_to_run_an_event_workflow_on_demand(capsys):
    assert main(["workflows", "run", "live_captions", "--offline"]) == 2
    assert "runs on 'utterance' events, not on demand" in capsys.readouterr().err


async def _advisory_locks_released(url: str, timeout_s: float = 10.0) -> None:
    """PostgreSQL releases a closed session's advisory locks when its backend has seen the
    disconnect, a moment after the client's close returns; a real next tick comes minutes later."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for _ in range(int(timeout_s / 0.05)):
            if not conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").fetchone()[0]:
                return
            await asyncio.sleep(0.05)
    raise AssertionError("the closed instance's advisory locks were never released")


async def test_a_clock_driven_workflow_runs_on_one_of_several_instances(runtime, postgres_url):
    """Each instance schedules the digest; the job locks let one of them run it (one push, not two)."""
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from agent.collect.joblocks import AdvisoryJobLocks

    locks = [AdvisoryJobLocks(postgres_url), AdvisoryJobLocks(postgres_url)]  # two instances' lock connections
    try:
        jobs = []
        for instance_locks in locks:
            scheduler = AsyncIOScheduler()
            schedule_workflows(scheduler, WorkflowEngine(runtime.deps, WORKFLOWS), instance_locks)
            jobs.append(scheduler.get_job("workflow:daily_digest"))
        for _tick in range(2):
            for job in jobs:
                await job.func(*job.args, **job.kwargs)
        runs = runtime.deps.store.query("SELECT trigger FROM workflow_runs WHERE workflow = 'daily_digest'")
        assert [r["trigger"] for r in runs] == ["cron:0 8 * * *"] * 2  # each tick once, by the holder
        locks[0].close()  # the holder goes away: the other instance takes the next tick
        await _advisory_locks_released(postgres_url)
        await jobs[1].func(*jobs[1].args, **jobs[1].kwargs)
        assert len(runtime.deps.store.query("SELECT 1 FROM workflow_runs WHERE workflow = 'daily_digest'")) == 3
    finally:
        for instance_locks in locks:
            instance_locks.close()
