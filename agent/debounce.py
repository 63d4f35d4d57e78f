"""Coalesce a burst of calls to one slow async job into at most two runs.

A call arriving while the job runs waits for the *next* run, which starts once the current
one ends; every call arriving before that next run starts shares it. So twenty ingest
requests landing during one re-index cost one more re-index, not twenty, and each caller
still returns only after a run that began after its call (its data is in the index).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["Coalescer"]

T = TypeVar("T")


class Coalescer(Generic[T]):
    def __init__(self, job: Callable[[], Awaitable[T]]) -> None:
        self._job = job
        self._lock = asyncio.Lock()
        self._next: asyncio.Task[T] | None = None
        self.runs = 0

    async def __call__(self) -> T:
        task = self._next
        if task is None:
            task = self._next = asyncio.ensure_future(self._run())
        # shielded: one caller giving up (client gone) does not cancel the run the others wait on
        return await asyncio.shield(task)

    async def _run(self) -> T:
        async with self._lock:  # after the run in progress
            self._next = None  # callers from now on need a run that starts after them
            self.runs += 1
            return await self._job()
