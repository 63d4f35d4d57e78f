"""/v1/workflows: list workflows and their recent runs; run one now (the manual trigger).

Admin keys only: a run refreshes every tenant's topics, and the recent runs name sessions of every key."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path

from ..deps import AdminKey, EngineDep
from ..errors import ADMIN_ERRORS, ApiError, error_responses

router = APIRouter(prefix="/v1/workflows", tags=["workflows"], responses=ADMIN_ERRORS)


@router.get("", summary="Workflows, load errors and recent runs")
async def list_workflows(engine: EngineDep, _: AdminKey) -> dict:
    runs = await asyncio.to_thread(engine.recent_runs, 20)
    return {
        "items": [{"name": w.name, "description": w.description, "enabled": w.enabled,
                   "trigger": w.trigger if isinstance(w.trigger, str) else w.trigger.model_dump(),
                   "steps": [s.use for s in w.steps]} for w in engine.workflows.values()],
        "errors": engine.errors, "recent_runs": runs,
    }


@router.post("/{name}/run", summary="Run a workflow now", responses=error_responses(409))
async def run_workflow(name: Annotated[str, Path(max_length=64)], engine: EngineDep, _: AdminKey) -> dict:
    spec = engine.get(name)  # unknown names answer 400 listing the valid ones
    event = getattr(spec.trigger, "event", None)
    if event:
        raise ApiError(409, f"workflow {name!r} runs on '{event}' events, not on demand")
    record = await engine.run(name, trigger="manual:api")
    return record.public()
