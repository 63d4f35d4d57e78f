"""OpenAI-compatible chat (/v1/chat/completions, /v1/models) and the Rokid Lingzhu agent (SSE)."""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import AsyncIterator

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from ...chat import answer_question
from ..deps import ApiKey, RuntimeDep
from ..errors import ApiError
from ..schemas import ChatRequest, LingzhuRequest

router = APIRouter(tags=["chat"])
MODEL_ID = "trendlens"


def _last_user_text(req: ChatRequest) -> str:
    for message in reversed(req.messages):
        if message.role == "user":
            if isinstance(message.content, str):
                return message.content
            if isinstance(message.content, list):
                return " ".join(str(p.get("text", "")) for p in message.content if p.get("type") == "text")
    return ""


def _chunks(text: str, size: int = 24) -> list[str]:
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


@router.get("/v1/models", summary="Models (OpenAI-compatible)")
async def models(_: ApiKey) -> dict:
    return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "created": 1767225600,
                                        "owned_by": "trendlens"}]}


@router.post("/v1/chat/completions", summary="Chat about what is trending (OpenAI-compatible)")
async def chat_completions(req: ChatRequest, runtime: RuntimeDep, _: ApiKey):  # type: ignore[no-untyped-def]
    question = _last_user_text(req).strip()
    if not question:
        raise ApiError(422, "messages: the conversation needs a user message with text")
    answer = await answer_question(runtime, question[:4000])
    created = int(time.time())
    completion_id = "chatcmpl-" + secrets.token_hex(12)
    model = req.model or MODEL_ID
    if not req.stream:
        prompt_tokens = sum(len(str(m.content or "")) for m in req.messages) // 2
        completion_tokens = max(1, len(answer.text) // 2)
        return {
            "id": completion_id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.text},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    async def events() -> AsyncIterator[str]:
        def chunk(delta: dict, finish: str | None = None) -> str:
            body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}
            return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

        yield chunk({"role": "assistant", "content": ""})
        for piece in _chunks(answer.text):
            yield chunk({"content": piece})
        yield chunk({}, "stop")
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


@router.post("/metis/agent/api/sse", tags=["lingzhu"], summary="Rokid Lingzhu third-party agent (SSE)")
async def lingzhu(req: LingzhuRequest, runtime: RuntimeDep, _: ApiKey) -> StreamingResponse:
    question = " ".join(i.text or "" for i in req.message if i.type == "text").strip()
    if not question:
        raise ApiError(422, "message: needs at least one text item")
    answer = await answer_question(runtime, question[:2000], style="glasses")

    async def events() -> AsyncIterator[str]:
        def frame(piece: str, finish: bool) -> str:
            body = {"role": "agent", "type": "answer", "answer_stream": piece, "message_id": req.message_id,
                    "agent_id": req.agent_id, "is_finish": finish}
            return f"event: message\ndata: {json.dumps(body, ensure_ascii=False)}\n\n"

        pieces = _chunks(answer.text, 16)
        for piece in pieces[:-1]:
            yield frame(piece, False)
        yield frame(pieces[-1], True)
        yield "event: done\ndata: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
