"""Turning workflow triggers into scheduler jobs (interval, cron); events and manual runs
are dispatched by the runtime and the CLI/API.

Every instance schedules every clock-driven workflow, and each tick asks the job locks first,
so with several instances on one database a workflow runs on one of them: one digest is
pushed, not one per instance. A refresh workflow's fetch step still fetches only the sources
this instance holds; the others' own jobs poll theirs.
"""

from __future__ import annotations

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger as APCron
from apscheduler.triggers.interval import IntervalTrigger as APInterval

from agent.collect.joblocks import JobLocks, LocalJobLocks, run_exclusive

from .runner import WorkflowEngine
from .spec import CronTrigger, IntervalTrigger

__all__ = ["schedule_workflows"]


def schedule_workflows(scheduler: BaseScheduler, engine: WorkflowEngine, locks: JobLocks | None = None) -> list[str]:
    """Add one job per enabled interval/cron workflow; returns the job ids."""
    locks = locks or LocalJobLocks()
    ids = []
    for spec in engine.workflows.values():
        if not spec.enabled:
            continue
        trigger = spec.trigger
        if isinstance(trigger, IntervalTrigger):
            ap_trigger = APInterval(seconds=trigger.interval_s)
            label = f"interval:{trigger.interval_s}s"
        elif isinstance(trigger, CronTrigger):
            ap_trigger = APCron.from_crontab(trigger.cron, timezone=trigger.timezone)
            label = f"cron:{trigger.cron}"
        else:
            continue  # event and manual workflows are not clock-driven
        job_id = f"workflow:{spec.name}"
        scheduler.add_job(run_exclusive, ap_trigger, args=[locks, job_id, engine.run, spec.name],
                          kwargs={"trigger": label}, id=job_id,
                          name=f"workflow {spec.name}", max_instances=1, coalesce=True, misfire_grace_time=300)
        ids.append(job_id)
    return ids
