"""One fetch path: the scheduler's per-source jobs and the refresh workflow both run `FetchJob`,
so both ask the job locks which sources this instance fetches."""

from __future__ import annotations

from agent.collect.scheduling import build_scheduler
from agent.engine.values import Fetched
from agent.runtime import Runtime
from agent.settings import Settings


class HeldLocks:
    """Job locks of an instance that holds only some jobs (another instance holds the rest)."""

    def __init__(self, held: set[str]) -> None:
        self.held, self.asked = held, []

    def claim(self, job: str) -> bool:
        self.asked.append(job)
        return job in self.held

    def close(self) -> None:
        pass


async def test_the_refresh_workflow_fetches_only_what_this_instance_holds(tmp_path):
    runtime = Runtime.build(Settings(data_dir=tmp_path, offline=True), embedder=None)
    locks = HeldLocks({"fetch:weibo", "fetch:zhihu"})
    runtime.fetch_job.locks = locks
    try:
        await runtime.start()
        assert runtime.engine is not None
        record = await runtime.engine.run("refresh_sources", trigger="manual")
        assert record.status == "ok", record.error
        assert isinstance(record.result, Fetched) and record.result.statuses == {"weibo": "ok", "zhihu": "ok"}
        assert {f"fetch:{s.name}" for s in runtime.collector.sources} == set(locks.asked)
        assert {s.topic.source for s in runtime.index.stored.values()} == {"weibo", "zhihu"}  # and they are indexed
    finally:
        await runtime.aclose()
        runtime.store.close()


def test_the_scheduler_runs_the_same_job(tmp_path):
    runtime = Runtime.build(Settings(data_dir=tmp_path, offline=True), embedder=None)
    scheduler = build_scheduler(runtime.collector, first_run_now=False, fetch=runtime.fetch_job)
    fetches = [j for j in scheduler.get_jobs() if j.id.startswith("fetch:")]
    assert len(fetches) == len(runtime.collector.sources)
    assert all(j.func == runtime.fetch_job.run for j in fetches)
    runtime.store.close()
