"""A burst of re-index requests costs at most two runs, and each caller sees a run newer than itself."""

from __future__ import annotations

import asyncio

from agent.debounce import Coalescer


def test_a_burst_shares_the_next_run() -> None:
    async def scenario() -> None:
        started: list[int] = []

        async def job() -> int:
            started.append(len(started))
            await asyncio.sleep(0.05)
            return len(started)

        coalesce = Coalescer(job)
        first = asyncio.create_task(coalesce())
        await asyncio.sleep(0.01)  # the first run is in progress
        burst = [asyncio.create_task(coalesce()) for _ in range(20)]
        results = await asyncio.gather(first, *burst)
        assert coalesce.runs == 2 and results[0] == 1 and set(results[1:]) == {2}
        assert await coalesce() == 3  # a later call gets a run of its own

    asyncio.run(scenario())
