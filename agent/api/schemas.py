"""Request and response bodies of the public API (pydantic at the boundary)."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.captions.profiles import DEFAULT_PROFILE
from agent.live.gating import Decision, Frequency, Reason
from agent.models import printable

Lang = Literal["zh", "en", "ja", "other"]


class TopicIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1, max_length=200)
    title: str = Field(min_length=1, max_length=500)

    @field_validator("id", "title")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        v = printable(v).strip()  # as the Topic it becomes will read it
        if not v:
            raise ValueError("must not be blank")
        return v
    source: str = Field(default="custom", pattern=r"^[A-Za-z0-9_\-:.]{1,64}$")
    summary: str | None = Field(default=None, max_length=5000)
    heat: float | None = Field(default=None, ge=0, le=1e15)
    url: str | None = Field(default=None, max_length=2000, description="an http:// or https:// link")
    lang: Lang | None = None
    rank: int | None = Field(default=None, ge=1, le=100_000, description="1-based place on the source's own list")

    @field_validator("url")
    @classmethod
    def _http_link(cls, v: str | None) -> str | None:
        # every surface links it (HUD, digest, chat): javascript:, data: and friends never get stored
        if v is None or not v.strip():
            return None
        parts = urlsplit(v.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// link with a host")
        return v.strip()


class IngestOut(BaseModel):
    ingested: int
    ids: list[str]


class SessionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    profile: str = DEFAULT_PROFILE
    frequency: Frequency = "medium"


class SessionOut(BaseModel):
    id: str
    token: str = Field(description="lets a HUD page watch the session's captions; it cannot drive the session")
    profile: str
    hud_url: str = Field(description="the HUD page, its token after `#` (never sent to a server, never logged)")


class UtteranceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=100_000)
    final: bool = Field(default=True, description=(
        "false for a recogniser's partial transcript: heard, not decided. A final piece of a sentence the "
        "recogniser cut at a pause may answer not_enough_speech while its caption waits for the rest; the "
        "caption then reaches the session's display and socket by itself"))


class CaptionOut(BaseModel):
    topic_id: str
    text: str
    lines: list[str]
    score: float
    source: str
    ttl_ms: int
    title: str | None = None
    profile: str | None = None


class ReplacedOut(BaseModel):
    story: str  # the story key of the caption this one took the display from
    topic_id: str | None = None


class DecisionOut(BaseModel):
    """The gate's decision on one utterance, as the HTTP answer and the stream socket's decision frame
    both say it."""

    show: bool
    reason: Reason
    topic_id: str | None
    score: float | None
    detail: str
    at: float
    # present only when the caption took the display from another: clients read it as present-or-absent
    replaced: ReplacedOut | None = Field(default=None, exclude_if=lambda replaced: replaced is None)
    # present only on a caption of a story held back from an earlier line: the seconds it waited for the display
    held_s: float | None = Field(default=None, exclude_if=lambda held_s: held_s is None)

    @classmethod
    def of(cls, decision: Decision) -> DecisionOut:
        # through `Decision.public`, the decision's one JSON form, which the evals print as well
        return cls.model_validate(decision.public())


class UtteranceOut(BaseModel):
    captions: list[CaptionOut]
    decision: DecisionOut | None = None
    warning: str | None = None


class DecisionFrame(BaseModel):
    """The stream socket's answer to each utterance frame, after its captions and any warning."""

    type: Literal["decision"] = "decision"
    decision: DecisionOut | None
    elapsed_ms: float
    stages_ms: dict[str, float]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        """The message's text: the string, or its text parts joined (images and audio are not read)."""
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            return " ".join(str(p.get("text") or "") for p in self.content if p.get("type") == "text").strip()
        return ""


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = "trendlens"
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    style: Literal["chat", "glasses"] = Field(
        default="chat", description="TrendLens extension: `glasses` answers as for a voice and a small card "
                                    "(no links, at most two items, short sentences)")
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)


class ChatUsage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatReply(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class ChatChoice(BaseModel):
    index: int
    message: ChatReply
    finish_reason: Literal["stop"]
    logprobs: None = None


class ChatCompletion(BaseModel):
    """A non-streamed answer; with `stream: true` the same arrives as `chat.completion.chunk` SSE events."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


class LingzhuItem(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str = Field(default="user", max_length=40)
    type: str = Field(default="text", max_length=40, description="text or image; other kinds are not read")
    text: str | None = None
    image_url: str | None = None


class LingzhuRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    message_id: str = Field(min_length=1, max_length=200)
    agent_id: str = Field(min_length=1, max_length=200)
    user_id: str | None = None
    message: list[LingzhuItem] = Field(min_length=1, description="the conversation so far, oldest first")
    metadata: dict[str, Any] | None = Field(default=None, description="glasses context; may be absent or null")


class ErrorDetail(BaseModel):
    message: str
    type: str = Field(description="OpenAI error class, e.g. invalid_request_error, authentication_error")
    param: str | None = Field(description="the request field at fault, when one is")
    code: str | None = Field(description="TrendLens error code, e.g. invalid_request, not_found, rate_limited")


class ErrorResponse(BaseModel):
    """The error envelope of every endpoint (OpenAI's four fields)."""

    error: ErrorDetail
