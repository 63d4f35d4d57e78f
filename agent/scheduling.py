"""Thin wiring of APScheduler: one interval job per source, plus retention pruning.

Jobs are plain async functions; triggers are values. The scheduler is started
and stopped by whoever owns the event loop (the CLI `run` loop or the API lifespan).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from .collect import Collector
from .models import utcnow

__all__ = ["build_scheduler"]

log = logging.getLogger("trendlens.schedule")


def build_scheduler(collector: Collector, *, first_run_now: bool = True) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(timezone="UTC")
    now = utcnow()
    for source in collector.sources:
        scheduler.add_job(
            collector.cycle, IntervalTrigger(seconds=source.interval), args=[[source.name]],
            id=f"fetch:{source.name}", name=f"fetch {source.name}",
            # the first poll of each source is spread over a few seconds, not one burst
            next_run_time=now + timedelta(seconds=0.2 * len(scheduler.get_jobs())) if first_run_now else None,
            max_instances=1, coalesce=True, misfire_grace_time=60,
        )
    scheduler.add_job(_prune, IntervalTrigger(hours=6), args=[collector], id="prune", name="prune old observations",
                      max_instances=1, coalesce=True)
    return scheduler


async def _prune(collector: Collector) -> None:
    removed = await asyncio.to_thread(collector.store.prune, collector.settings.retention_days)
    if removed:
        log.info("pruned %d observations older than %d days", removed, collector.settings.retention_days)
