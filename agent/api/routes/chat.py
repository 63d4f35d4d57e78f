"""OpenAI-compatible chat: /v1/chat/completions (JSON or a stream of chunks) and /v1/models."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path

from agent.answers.chat import Turn, answer_question

from ..deps import ApiKey, ChatDep
from ..errors import AUTHED_ERRORS, ApiError
from ..schemas import ChatCompletion, ChatRequest, ModelList, ModelOut
from ..sse import SSE_HEADERS, EventStream, chunks, sse_event_schema

router = APIRouter(tags=["chat"])
MODEL_ID = "trendlens"
_MODEL = ModelOut(id=MODEL_ID, created=1767225600, owned_by="trendlens")

# Invalid requests to the OpenAI paths are 400; 422 stays documented as for every operation.
_CHAT_ERRORS = AUTHED_ERRORS


def _tokens(text: str) -> int:
    return max(1, len(text) // 2)


@router.get("/v1/models", summary="Models (OpenAI-compatible)", response_model=ModelList, responses=_CHAT_ERRORS)
async def models(_: ApiKey) -> ModelList:
    return ModelList(data=[_MODEL])


@router.get("/v1/models/{model_id}", summary="One model (OpenAI-compatible)", response_model=ModelOut,
            responses=_CHAT_ERRORS)
async def model(model_id: Annotated[str, Path(max_length=200)], _: ApiKey) -> ModelOut:
    if model_id != MODEL_ID:
        raise ApiError(404, f"The model {model_id!r} does not exist; the only model is {MODEL_ID!r}",
                       code="model_not_found", param="model")
    return _MODEL


_COMPLETION_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "The answer; with `stream: true`, `chat.completion.chunk` events ending in `[DONE]`",
          "content": {"text/event-stream": {"schema": sse_event_schema()}}},
    **_CHAT_ERRORS,
}


@router.post("/v1/chat/completions", summary="Chat about what is trending (OpenAI-compatible)",
             response_model=ChatCompletion, responses=_COMPLETION_DOC)
async def chat_completions(req: ChatRequest, chat: ChatDep, _: ApiKey):  # type: ignore[no-untyped-def]
    asked = [i for i, m in enumerate(req.messages) if m.role == "user" and m.text().strip()]
    if not asked:
        raise ApiError(400, "messages: the conversation needs a user message with text", param="messages")
    last = asked[-1]
    question = req.messages[last].text().strip()
    history = [Turn(role="user" if m.role == "user" else "assistant", text=m.text()[:4000])
               for m in req.messages[:last] if m.role in ("user", "assistant") and m.text().strip()]
    answer = await answer_question(chat, question[:4000], style=req.style, history=history[-10:])
    created = int(time.time())
    completion_id = "chatcmpl-" + secrets.token_hex(12)
    model = req.model or MODEL_ID
    prompt_tokens = _tokens("".join(m.text() for m in req.messages))
    completion_tokens = _tokens(answer.text)
    usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
             "total_tokens": prompt_tokens + completion_tokens}
    if not req.stream:
        return {
            "id": completion_id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.text},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": usage,
        }
    include_usage = bool(req.stream_options and req.stream_options.include_usage)

    async def events() -> AsyncIterator[str]:
        def chunk(choices: list[dict[str, Any]], **extra: Any) -> str:
            body = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": choices, **extra}
            if include_usage:
                body.setdefault("usage", None)  # as OpenAI: null on every chunk but the last
            return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

        def delta(content: dict[str, Any], finish: str | None = None) -> str:
            return chunk([{"index": 0, "delta": content, "finish_reason": finish, "logprobs": None}])

        yield delta({"role": "assistant", "content": ""})
        for piece in chunks(answer.text):
            yield delta({"content": piece})
        yield delta({}, "stop")
        if include_usage:
            yield chunk([], usage=usage)
        yield "data: [DONE]\n\n"

    return EventStream(events(), headers=SSE_HEADERS)
