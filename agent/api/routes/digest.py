"""/v1/digest: top topics merged across platforms, as JSON, Markdown or HTML."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import HTMLResponse, PlainTextResponse

from agent.answers.digest import render_digest
from agent.answers.queries import digest_window

from ..deps import ApiKey, IndexDep, StoreDep
from ..errors import AUTHED_ERRORS, ApiError

router = APIRouter(prefix="/v1", tags=["digest"], responses=AUTHED_ERRORS)

_FORMATS: dict[int | str, dict[str, Any]] = {200: {
    "description": "The digest: JSON by default, Markdown with `format=md`, an HTML page with `format=html`",
    "content": {"text/markdown": {"schema": {"type": "string"}}, "text/html": {"schema": {"type": "string"}}},
}}


@router.get("/digest", summary="Digest of top topics with heat sparklines", responses=_FORMATS)
async def digest(store: StoreDep, index: IndexDep, _: ApiKey,
                 since: Annotated[str | None, Query(description="ISO time; default 24 h ago", max_length=40)] = None,
                 lang: Literal["zh", "en", "ja", "other"] | None = None,
                 format: Literal["json", "md", "html"] = "json",
                 limit: Annotated[int, Query(ge=1, le=200)] = 20):  # type: ignore[no-untyped-def]
    start = None
    if since:
        try:
            start = datetime.fromisoformat(since.replace("Z", "+00:00"))
        except ValueError:
            raise ApiError(422, f"since: {since!r} is not an ISO 8601 time") from None
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
    d = await digest_window(store, index.cluster_list(), since=start, lang=lang, limit=limit,
                            view=index.view.story_view)
    if format == "json":
        return d.public()
    text = render_digest(d, format)
    if format == "html":
        return HTMLResponse(text, headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")
