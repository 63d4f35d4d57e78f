"""Server-sent events as both streaming APIs send them: the OpenAI chat stream and the Lingzhu agent."""

from __future__ import annotations

import re
from typing import Any

from fastapi.responses import StreamingResponse

__all__ = ["SSE_HEADERS", "EventStream", "chunks", "sse_event_schema"]

# no caching, and no buffering in nginx: each frame reaches the client as it is written
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class EventStream(StreamingResponse):
    """Server-sent events (documented as text/event-stream)."""

    media_type = "text/event-stream"


def chunks(text: str, size: int = 24) -> list[str]:
    """Split at sentence/clause ends when possible so streamed pieces read naturally."""
    parts = [p for p in re.split(r"(?<=[。！？，、\n.!?,;])", text) if p]
    out: list[str] = []
    for p in parts:
        while len(p) > size:
            out.append(p[:size])
            p = p[size:]
        if p:
            out.append(p)
    return out or [""]


def sse_event_schema(*names: str) -> dict[str, Any]:
    """The schema of one server-sent event (its `data` is JSON, or `[DONE]` at the end)."""
    props: dict[str, Any] = {"data": {"type": "string"}, "id": {"type": "string"}}
    if names:
        props["event"] = {"type": "string", "enum": list(names)}
    return {"type": "object", "required": ["data"], "properties": props}
