"""Thin wiring of APScheduler: one interval job per source, plus retention pruning.

Jobs are plain async functions; triggers are values. The scheduler is started
and stopped by whoever owns the event loop (the CLI `run` loop or the API lifespan).
Every instance schedules every job; `JobLocks` (agent/collect/joblocks.py) decides on each tick
whether this instance is the one that runs it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

from apscheduler.events import EVENT_SCHEDULER_SHUTDOWN
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from agent.collect.collector import Collector
from agent.collect.fetching import SourceOutcome
from agent.collect.joblocks import JobLocks, job_locks_for, run_exclusive
from agent.models import utcnow

__all__ = ["FetchJob", "build_scheduler", "schedule_index_follow"]

log = logging.getLogger("trendlens.schedule")


class FetchJob:
    """The one way sources are fetched on a schedule: the per-source jobs and the refresh
    workflow's fetch step both come here, so both ask the job locks first."""

    def __init__(self, collector: Collector, locks: JobLocks) -> None:
        self.collector, self.locks = collector, locks

    async def run(self, names: Sequence[str] | None = None) -> list[SourceOutcome]:
        """Fetch the named sources (all when None) that this instance holds; returns their outcomes."""
        wanted = [s.name for s in self.collector.sources if names is None or s.name in names]
        mine = [n for n in wanted if await asyncio.to_thread(self.locks.claim, f"fetch:{n}")]
        return await self.collector.cycle(mine) if mine else []


def build_scheduler(collector: Collector, *, first_run_now: bool = True, locks: JobLocks | None = None,
                    fetch: FetchJob | None = None) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(timezone="UTC")
    fetch = fetch or FetchJob(collector, locks or job_locks_for(collector.settings))
    job_locks = fetch.locks
    scheduler.add_listener(lambda _event: job_locks.close(), EVENT_SCHEDULER_SHUTDOWN)
    now = utcnow()
    for source in collector.sources:
        scheduler.add_job(
            fetch.run, IntervalTrigger(seconds=source.interval), args=[[source.name]],
            id=f"fetch:{source.name}", name=f"fetch {source.name}",
            # the first poll of each source is spread over a few seconds, not one burst
            next_run_time=now + timedelta(seconds=0.2 * len(scheduler.get_jobs())) if first_run_now else None,
            max_instances=1, coalesce=True, misfire_grace_time=60,
        )
    # hourly: kept utterance words outlive TRENDLENS_KEEP_UTTERANCES_DAYS by an hour at most
    scheduler.add_job(run_exclusive, IntervalTrigger(hours=1), args=[job_locks, "prune", _prune, collector],
                      id="prune", name="prune old records", max_instances=1, coalesce=True)
    return scheduler


def schedule_index_follow(scheduler: AsyncIOScheduler, follow: Callable[[], Awaitable[Any]], every_s: float) -> None:
    """Every instance looks for topics that others wrote (`TopicIndex.follow`); 0 turns it off."""
    if every_s > 0:
        scheduler.add_job(follow, IntervalTrigger(seconds=every_s), id="index:follow", name="follow the store",
                          max_instances=1, coalesce=True, misfire_grace_time=None)


async def _prune(collector: Collector) -> None:
    store = collector.settings.store
    removed = await asyncio.to_thread(collector.store.prune, store.retention_days,
                                      keep_utterances_days=store.keep_utterances_days)
    if removed:
        log.info("pruned %d observations older than %d days", removed, store.retention_days)
