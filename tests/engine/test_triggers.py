"""Clock-driven workflows as scheduler jobs, run by one of several instances."""

from __future__ import annotations

import asyncio

from agent.engine.runner import WorkflowEngine
from agent.engine.triggers import schedule_workflows

from .helpers import WORKFLOWS


def test_interval_and_cron_workflows_become_scheduler_jobs(runtime):
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    engine = WorkflowEngine(runtime.deps, WORKFLOWS)
    ids = schedule_workflows(AsyncIOScheduler(), engine)
    assert sorted(ids) == ["workflow:daily_digest", "workflow:refresh_sources"]
    assert [w.name for w in engine.for_event("utterance")] == ["live_captions"]


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

