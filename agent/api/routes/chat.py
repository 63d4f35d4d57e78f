"""OpenAI-compatible chat (/v1/chat/completions, /v1/models) and the Rokid Lingzhu agent (SSE)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import StreamingResponse

from ...chat import Turn, answer_question
from ...errors import TrendLensError
from ..deps import ApiKey, RuntimeDep
from ..errors import AUTHED_ERRORS, ApiError, error_responses
from ..schemas import ChatCompletion, ChatRequest, LingzhuItem, LingzhuRequest, ModelList, ModelOut

router = APIRouter(tags=["chat"])
log = logging.getLogger("trendlens.api.chat")
MODEL_ID = "trendlens"
_MODEL = ModelOut(id=MODEL_ID, created=1767225600, owned_by="trendlens")
# Lingzhu: the reference bridges send a comment at once and keep-alives while the agent thinks,
# so the glasses do not give up on a slow answer.
KEEPALIVE_S = 0.5
_SSE = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class EventStream(StreamingResponse):
    """Server-sent events (documented as text/event-stream)."""

    media_type = "text/event-stream"


# Invalid requests to the OpenAI paths are 400; 422 stays documented as for every operation.
_CHAT_ERRORS = AUTHED_ERRORS


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


def _sse_event(*names: str) -> dict[str, Any]:
    """The schema of one server-sent event (its `data` is JSON, or `[DONE]` at the end)."""
    props: dict[str, Any] = {"data": {"type": "string"}, "id": {"type": "string"}}
    if names:
        props["event"] = {"type": "string", "enum": list(names)}
    return {"type": "object", "required": ["data"], "properties": props}


_COMPLETION_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "The answer; with `stream: true`, `chat.completion.chunk` events ending in `[DONE]`",
          "content": {"text/event-stream": {"schema": _sse_event()}}},
    **_CHAT_ERRORS,
}


@router.post("/v1/chat/completions", summary="Chat about what is trending (OpenAI-compatible)",
             response_model=ChatCompletion, responses=_COMPLETION_DOC)
async def chat_completions(req: ChatRequest, runtime: RuntimeDep, _: ApiKey):  # type: ignore[no-untyped-def]
    asked = [i for i, m in enumerate(req.messages) if m.role == "user" and m.text().strip()]
    if not asked:
        raise ApiError(400, "messages: the conversation needs a user message with text", param="messages")
    last = asked[-1]
    question = req.messages[last].text().strip()
    history = [Turn(role="user" if m.role == "user" else "assistant", text=m.text()[:4000])
               for m in req.messages[:last] if m.role in ("user", "assistant") and m.text().strip()]
    answer = await answer_question(runtime, question[:4000], style=req.style, history=history[-10:])
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
        for piece in _chunks(answer.text):
            yield delta({"content": piece})
        yield delta({}, "stop")
        if include_usage:
            yield chunk([], usage=usage)
        yield "data: [DONE]\n\n"

    return EventStream(events(), headers=_SSE)


def _lingzhu_turns(items: list[LingzhuItem]) -> tuple[str | None, bool, list[Turn]]:
    """(question, the last user turn had an image, earlier turns): the question is the last user text item."""
    last_user = [i for i, item in enumerate(items) if item.role == "user"]
    if not last_user:
        return None, False, []
    # the last user turn: the run of user items at the end of the conversation
    start = last_user[-1]
    while start > 0 and items[start - 1].role == "user":
        start -= 1
    turn = items[start:last_user[-1] + 1]
    texts = [i for i, item in enumerate(turn) if item.type == "text" and (item.text or "").strip()]
    has_image = any(item.type != "text" for item in turn)
    earlier = [Turn(role="user" if item.role == "user" else "assistant", text=(item.text or "")[:4000])
               for item in items[:start] if item.type == "text" and (item.text or "").strip()]
    if not texts:
        return None, has_image, earlier
    at = start + texts[-1]
    # text items of the same turn before the question are context too
    earlier += [Turn(role="user", text=(item.text or "")[:4000])
                for item in items[start:at] if item.type == "text" and (item.text or "").strip()]
    return (items[at].text or "").strip(), has_image, earlier


def _no_images(req: LingzhuRequest) -> str:
    lang = str((req.metadata or {}).get("lang") or "zh").lower()
    if lang.startswith("en"):
        return "I can't read images yet. Please ask me in words."
    return "我还看不了图片，请用语音问我。"


_LINGZHU_DOC: dict[int | str, dict[str, Any]] = {
    200: {"description": "Server-sent events: `:ok`, keep-alive comments, `event: message` answer frames "
                         "(the last with `is_finish: true`), then `event: done`",
          "content": {"text/event-stream": {"schema": _sse_event("message", "done")}}},
    **error_responses(400, 401, 404, 413, 422, 429, json_only=True),
}


@router.post("/metis/agent/api/sse", tags=["lingzhu"], summary="Rokid Lingzhu third-party agent (SSE)",
             response_class=EventStream, responses=_LINGZHU_DOC)
async def lingzhu(req: LingzhuRequest, runtime: RuntimeDep, _: ApiKey) -> EventStream:
    question, has_image, history = _lingzhu_turns(req.message)
    if question is None and not has_image:
        raise ApiError(422, "message: needs a role=user item with text (or an image)", param="message")

    async def answer_text() -> str:
        if question is None:
            return _no_images(req)
        try:
            return (await answer_question(runtime, question[:2000], style="glasses", history=history[-10:])).text
        except Exception as exc:  # noqa: BLE001 - the stream has started: say so in words, not with a status
            if isinstance(exc, TrendLensError):
                log.warning("lingzhu answer failed: %s", exc)
            else:
                log.exception("lingzhu answer failed")
            return "现在有点忙，请稍后再问。" if not re.search(r"[A-Za-z]{3}", question) else \
                "I'm busy right now; please ask again shortly."

    async def events() -> AsyncIterator[str]:
        yield ":ok\n\n"
        task = asyncio.create_task(answer_text())
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=KEEPALIVE_S)
                if done:
                    break
                yield ": keep-alive\n\n"
            text = task.result()
        finally:
            if not task.done():  # the glasses went away: stop working on their answer
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

        def frame(piece: str, finish: bool) -> str:
            body = {"role": "agent", "type": "answer", "answer_stream": piece, "message_id": req.message_id,
                    "agent_id": req.agent_id, "is_finish": finish}
            return f"event: message\ndata: {json.dumps(body, ensure_ascii=False)}\n\n"

        pieces = _chunks(text, 16)
        for piece in pieces[:-1]:
            yield frame(piece, False)
        yield frame(pieces[-1], True)
        yield "event: done\ndata: [DONE]\n\n"

    return EventStream(events(), headers=_SSE)
