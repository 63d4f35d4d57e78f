"""The Rokid Lingzhu third-party agent, as the public bridges serve it.

    GET  /metis/agent/api/health   the platform's probe (and `scripts/tools/lingzhu_probe.py`'s): no key needed
    POST /metis/agent/api/sse      a question; server-sent events back:
         :ok                        at once
         : keep-alive               every KEEPALIVE_S while the answer is worked out
         event: message             {"type": "answer", "answer_stream": …, "is_finish": false} …, the last true
         event: message             {"type": "follow_up", "follow_up": ["…", …], "is_finish": true}  (when any)
         event: done               [DONE]

The shapes are those of the OpenClaw Lingzhu plugin and DeepScientist's connector (docs/lingzhu.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from agent.answers.chat import Answer, Turn, answer_question
from agent.answers.chat.suggest import MAX_FOLLOW_UPS

from ...errors import TrendLensError
from ...logs import log_field
from ...text import MAX_TEXT_CHARS
from ..deps import ApiKey, ChatDep, IndexDep
from ..errors import ApiError, error_responses
from ..schemas import LingzhuItem, LingzhuRequest
from ..sse import SSE_HEADERS, EventStream, chunks, sse_event_schema

__all__ = ["KEEPALIVE_S", "SSE_PATH", "router"]

router = APIRouter(tags=["lingzhu"])
log = logging.getLogger("trendlens.api.lingzhu")

SSE_PATH = "/metis/agent/api/sse"
# The reference bridges send a comment at once and keep-alives while the agent thinks,
# so the glasses do not give up on a slow answer.
KEEPALIVE_S = 0.5


class LingzhuHealth(BaseModel):
    """What the bridges' health route says (in their camelCase), plus how many topics answers draw on."""

    ok: bool = Field(description="the agent answers questions (false until the service has started)")
    endpoint: str = Field(default=SSE_PATH, description="where the platform sends questions")
    agentId: str = Field(default="trendlens")
    followUpEnabled: bool = True
    followUpMaxCount: int = MAX_FOLLOW_UPS
    supportedCommands: list[str] = Field(default_factory=list,
                                         description="device tool calls this agent sends: none")
    topics: int = Field(description="topics the answers are drawn from now")


@router.get("/metis/agent/api/health", summary="Lingzhu agent health (the platform's probe)",
            response_model=LingzhuHealth,
            responses={503: {"description": "Not started yet", "model": LingzhuHealth}})
async def lingzhu_health(index: IndexDep) -> JSONResponse:
    ok = index.ranker is not None
    body = LingzhuHealth(ok=ok, topics=len(index.stored))
    return JSONResponse(body.model_dump(), status_code=200 if ok else 503)


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
                         "(the last with `is_finish: true`), a `follow_up` frame with up to three suggested "
                         "questions, then `event: done`",
          "content": {"text/event-stream": {"schema": sse_event_schema("message", "done")}}},
    **error_responses(400, 401, 404, 413, 422, 429, json_only=True),
}


@router.post(SSE_PATH, summary="Rokid Lingzhu third-party agent (SSE)", response_class=EventStream,
             responses=_LINGZHU_DOC)
async def lingzhu(req: LingzhuRequest, chat: ChatDep, _: ApiKey) -> EventStream:
    question, has_image, history = _lingzhu_turns(req.message)
    if question is None and not has_image:
        raise ApiError(422, "message: needs a role=user item with text (or an image)", param="message")

    async def answer() -> tuple[str, list[str]]:
        if question is None:
            return _no_images(req), []
        try:
            said: Answer = await answer_question(chat, question[:MAX_TEXT_CHARS], style="glasses",
                                                 history=history[-10:])
            return said.text, said.follow_ups
        except Exception as exc:  # noqa: BLE001 - the stream has started: say so in words, not with a status
            if isinstance(exc, TrendLensError):
                log.warning("lingzhu answer failed: %s", log_field(exc))
            else:
                log.exception("lingzhu answer failed")
            busy = ("现在有点忙，请稍后再问。" if not re.search(r"[A-Za-z]{3}", question)
                    else "I'm busy right now; please ask again shortly.")
            return busy, []

    def frame(body: dict[str, Any]) -> str:
        full = {"role": "agent", **body, "message_id": req.message_id, "agent_id": req.agent_id}
        return f"event: message\ndata: {json.dumps(full, ensure_ascii=False)}\n\n"

    async def events() -> AsyncIterator[str]:
        yield ":ok\n\n"
        task = asyncio.create_task(answer())
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=KEEPALIVE_S)
                if done:
                    break
                yield ": keep-alive\n\n"
            text, follow_ups = task.result()
        finally:
            if not task.done():  # the glasses went away: stop working on their answer
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        pieces = chunks(text, 16)
        for n, piece in enumerate(pieces, 1):
            yield frame({"type": "answer", "answer_stream": piece, "is_finish": n == len(pieces)})
        if follow_ups:
            yield frame({"type": "follow_up", "follow_up": follow_ups, "is_finish": True})
        yield "event: done\ndata: [DONE]\n\n"

    return EventStream(events(), headers=SSE_HEADERS)
