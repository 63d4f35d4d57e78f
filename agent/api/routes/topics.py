"""/v1/topics and /v1/sources."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Query

from ...models import Topic, detect_lang
from ..deps import ApiKey, RuntimeDep
from ..errors import AUTHED_ERRORS, ApiError
from ..schemas import IngestOut, TopicIn

router = APIRouter(prefix="/v1", tags=["topics"], responses=AUTHED_ERRORS)

MAX_INGEST = 5000


@router.post("/topics", response_model=IngestOut, status_code=201, summary="Bulk-ingest topics from your own source")
async def ingest_topics(runtime: RuntimeDep, _: ApiKey,
                        items: Annotated[list[TopicIn], Body(max_length=MAX_INGEST)]) -> IngestOut:
    if not items:
        raise ApiError(422, "send a non-empty JSON array of topics")
    topics = [
        Topic(source=i.source, item_id=i.id, ref=i.id, title=i.title, summary=i.summary, heat=i.heat, url=i.url,
              rank=i.rank,
              lang=i.lang or detect_lang(i.title), extra={"ingested": True})
        for i in items
    ]
    await asyncio.to_thread(runtime.store.ingest, topics)
    await runtime.refresh_topics()
    return IngestOut(ingested=len(topics), ids=[t.id for t in topics])


@router.get("/topics", summary="Current topics: by heat, or by relevance to q")
async def list_topics(runtime: RuntimeDep, _: ApiKey,
                      lang: Literal["zh", "en", "ja", "other"] | None = None,
                      source: Annotated[str | None, Query(max_length=64)] = None,
                      q: Annotated[str | None, Query(max_length=2000)] = None,
                      limit: Annotated[int, Query(ge=1, le=500)] = 50) -> dict:
    if q and q.strip():
        ranked = await runtime.rank(q, top_k=min(limit * 3, 500), prior=False, mmr=False)
        items = []
        for r in ranked:
            t = r.topic
            if (lang and t.lang != lang) or (source and t.source != source):
                continue
            stored = runtime.stored.get(t.id)
            items.append({**(stored.public() if stored else t.public()), "score": round(r.score, 4),
                          "components": {k: round(v, 4) for k, v in r.components.items()}})
        return {"items": items[:limit], "order": "relevance"}
    current = await asyncio.to_thread(lambda: runtime.store.current(source=source, lang=lang, limit=limit))
    return {"items": [s.public() for s in current], "order": "heat"}


@router.get("/topics/{topic_id:path}", summary="One topic with its heat history and cluster members")
async def get_topic(topic_id: str, runtime: RuntimeDep, _: ApiKey) -> dict:
    stored = await asyncio.to_thread(runtime.store.get, topic_id)
    if stored is None:
        raise ApiError(404, f"no topic {topic_id!r}")
    history = await asyncio.to_thread(runtime.store.history, topic_id)
    cluster = runtime.clusters.get(topic_id)
    return {
        **stored.public(),
        "history": [p.__dict__ for p in history],
        "cluster": {"id": cluster.id, "heat": cluster.heat, "platforms": cluster.platforms,
                    "members": [m.public() for m in cluster.members]} if cluster else None,
    }


@router.get("/sources", tags=["sources"], summary="Every source with its health")
async def list_sources(runtime: RuntimeDep, _: ApiKey) -> dict:
    health = {h.source: h for h in await asyncio.to_thread(runtime.store.health)}
    out = []
    for source in runtime.collector.sources:
        h = health.get(source.name)
        out.append({
            "name": source.name, "title": source.title, "lang": source.lang, "interval_s": source.interval,
            "enabled": source.disabled_reason() is None, "disabled_reason": source.disabled_reason(),
            "status": h.status if h else "never fetched", "last_success": h.last_success if h else None,
            "last_error": h.last_error if h else None, "last_count": h.last_count if h else 0,
            "consecutive_failures": h.consecutive_failures if h else 0,
        })
    return {"items": out, "replaying_fixtures": runtime.collector.replaying}
