"""/v1/topics and /v1/sources."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Query, Request

from agent.answers.queries import source_statuses

from ...models import Topic, detect_lang
from ...ranking.query import RankQuery
from ...text import MAX_TEXT_CHARS
from ..deps import AdminKey, ApiKey, CollectorDep, IndexDep, StoreDep
from ..errors import AUTHED_ERRORS, ApiError, error_responses
from ..ingest import IngestQueue
from ..ingest_rules import IngestRules, key_id
from ..schemas import ErrorResponse, IngestOut, TopicIn

router = APIRouter(prefix="/v1", tags=["topics"], responses=AUTHED_ERRORS)

MAX_INGEST = 5000

_INGEST_ERRORS: dict[int | str, dict] = {
    **error_responses(403),
    413: {"model": ErrorResponse,
          "description": f"More than {MAX_INGEST} topics in one request (the limit is in the message), "
                         "or a body over the size limit"},
    409: {"model": ErrorResponse,
          "description": "An id that a fetched topic or another key's ingest holds: ingest under an id of your own"},
    429: {"model": ErrorResponse,
          "description": "Too many topics wait to be indexed, or the API key's rate limit: retry after Retry-After; "
                         "or the key holds its cap of ingested topics (code ingest_cap_reached, no Retry-After)",
          "headers": {"Retry-After": {"description": "seconds to wait before retrying",
                                      "schema": {"type": "integer"}}}},
}


def _rules(request: Request) -> IngestRules:
    rules = getattr(request.app.state, "ingest_rules", None)
    if rules is None:
        runtime = request.app.state.runtime
        rules = request.app.state.ingest_rules = IngestRules(runtime.settings,
                                                             (s.name for s in runtime.collector.sources))
    return rules


def _queue(request: Request) -> IngestQueue:
    queue = getattr(request.app.state, "ingest", None)
    if queue is None:
        queue = request.app.state.ingest = IngestQueue(request.app.state.runtime.settings.server.ingest_queue_topics)
    return queue


@router.post("/topics", response_model=IngestOut, status_code=201, summary="Bulk-ingest topics from your own source",
             responses=_INGEST_ERRORS)
async def ingest_topics(request: Request, store: StoreDep, index: IndexDep, key: AdminKey,
                        items: Annotated[list[TopicIn], Body(json_schema_extra={"maxItems": MAX_INGEST})]) -> IngestOut:
    if not items:
        raise ApiError(422, "send a non-empty JSON array of topics")
    if len(items) > MAX_INGEST:
        raise ApiError(413, f"at most {MAX_INGEST} topics per request; this one has {len(items)}: split it")
    rules = _rules(request)
    ids = [i.id for i in items]
    rules.check_ids(ids)
    await asyncio.to_thread(rules.admit, store, key, ids)
    queue = _queue(request)
    admitted = queue.admit(len(items))
    indexed = False
    topics = [
        Topic(source=i.source, item_id=i.id, ref=i.id, title=i.title, summary=i.summary, heat=i.heat, url=i.url,
              rank=i.rank,
              lang=i.lang or detect_lang(i.title), extra={"ingested": True, "ingested_by": key_id(key)})
        for i in items
    ]
    try:
        await asyncio.to_thread(store.ingest, topics)
        await index.refresh()  # requests arriving together share one rebuild (TopicIndex)
        indexed = True
    finally:
        queue.done(len(items), admitted, indexed=indexed)
    return IngestOut(ingested=len(topics), ids=[t.id for t in topics])


@router.get("/topics", summary="Current topics: by heat, or by relevance to q")
async def list_topics(store: StoreDep, index: IndexDep, _: ApiKey,
                      lang: Literal["zh", "en", "ja", "other"] | None = None,
                      source: Annotated[str | None, Query(max_length=64)] = None,
                      q: Annotated[str | None, Query(max_length=MAX_TEXT_CHARS)] = None,
                      limit: Annotated[int, Query(ge=1, le=500)] = 50) -> dict:
    if q and q.strip():
        ranked = await index.rank(RankQuery(text=q, top_k=min(limit * 3, 500), prior=False, mmr=False))
        items = []
        for r in ranked:
            t = r.topic
            if (lang and t.lang != lang) or (source and t.source != source):
                continue
            stored = index.stored.get(t.id)
            items.append({**(stored.public() if stored else t.public()), "score": round(r.score, 4),
                          "components": {k: round(v, 4) for k, v in r.components.items()}})
        return {"items": items[:limit], "order": "relevance"}
    current = await asyncio.to_thread(lambda: store.current(source=source, lang=lang, limit=limit))
    return {"items": [s.public() for s in current], "order": "heat"}


@router.get("/topics/{topic_id:path}", summary="One topic with its heat history and cluster members")
async def get_topic(topic_id: str, store: StoreDep, index: IndexDep, _: ApiKey) -> dict:
    stored = await asyncio.to_thread(store.get, topic_id)
    if stored is None:
        raise ApiError(404, f"no topic {topic_id!r}")
    history = await asyncio.to_thread(store.history, topic_id)
    cluster = index.clusters.get(topic_id)
    # the story stays the unit; the occasion it sits under (the Gala) is told beside it
    occasion = index.occasion_of.get(cluster.id) if cluster else None
    return {
        **stored.public(),
        "history": [p.__dict__ for p in history],
        "cluster": {"id": cluster.id, "heat": cluster.heat, "platforms": cluster.platforms,
                    "members": [m.public() for m in cluster.members]} if cluster else None,
        "occasion": occasion.public(index.view.stories) if occasion else None,
    }


@router.get("/sources", tags=["sources"], summary="Every source with its health")
async def list_sources(collector: CollectorDep, store: StoreDep, _: ApiKey) -> dict:
    statuses = await source_statuses(collector.sources, store, replaying=collector.replaying)
    return {"items": [s.public() for s in statuses],
            "replaying_fixtures": collector.replaying}
