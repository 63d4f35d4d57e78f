"""/healthz (alive), /readyz (ready or degraded, and why), /metrics (Prometheus)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse

from agent.collect.collector import SYNTHETIC

from ..deps import CollectorDep, IndexDep, MetricsDep, MetricsReader, RuntimeDep, StoreDep
from ..errors import error_responses

router = APIRouter(tags=["ops"])


@router.get("/healthz", summary="Liveness")
async def healthz() -> dict:
    return {"status": "ok"}


@router.get("/readyz", summary="Readiness: degraded when sources fail, synthetic data is served or the model is "
                               "not loaded",
            responses={503: {"description": "Not started yet: the same body, with the reasons",
                             "content": {"application/json": {"schema": {"type": "object"}}}}})
async def readyz(store: StoreDep, index: IndexDep, collector: CollectorDep, runtime: RuntimeDep) -> JSONResponse:
    health = await asyncio.to_thread(store.health)
    # a source switched off for want of credentials is configuration, not a failure
    failing = sorted(h.source for h in health if h.consecutive_failures > 0 and h.last_error_kind != "disabled")
    reasons = []
    if index.ranker is None:
        reasons.append("ranker not started")
    elif index.ranker.embedder is None:
        reasons.append(f"embedding model not loaded, ranking lexically only: {index.model_error}")
    if failing:
        reasons.append(f"sources failing: {', '.join(failing)}")
    replaying = collector.replay_reason
    if replaying:
        # made-up hot lists are fine for a demo, never what "ready" should mean
        reasons.append(f"replaying the {SYNTHETIC}, not live data ({replaying})")
    if not index.stored:
        reasons.append("no topics yet")
    # a channel is named by its scheme and place (`tgram#1`): its URL holds its secret
    channels_failing = runtime.notifier.failing()
    if channels_failing:
        reasons.append(f"push channels failing: {', '.join(channels_failing)}")
    outbox = runtime.watcher.outbox
    if outbox.backed_up:
        # the pushes wait on channels slower than what is due: alerts are late, nothing else is
        reasons.append(f"push queue backed up: {outbox.waiting} waiting, {outbox.refused} refused")
    status = "ready" if not reasons else "degraded"
    body = {"status": status, "reasons": reasons, "topics": len(index.stored),
            "model": index.model_name, "replaying_fixtures": collector.replaying,
            "data": SYNTHETIC if replaying else "live",
            "sources_failing": failing, "notify": [h.public() for h in runtime.notifier.health()],
            "push_queue": {"waiting": outbox.waiting, "refused": outbox.refused, "size": outbox.size}}
    # degraded still serves (lexical ranking, last good snapshots): 200 keeps it in rotation
    return JSONResponse(body, status_code=503 if index.ranker is None else 200)


@router.get("/metrics", summary="Prometheus metrics (TRENDLENS_METRICS_TOKEN or an admin key)",
            response_class=PlainTextResponse, dependencies=[MetricsReader],
            responses=error_responses(401, 403, 429, json_only=True))
async def metrics(registry: MetricsDep) -> PlainTextResponse:
    return PlainTextResponse(registry.render(), media_type="text/plain; version=0.0.4")
