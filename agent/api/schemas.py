"""Request and response bodies of the public API (pydantic at the boundary)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Lang = Literal["zh", "en", "ja", "other"]


class TopicIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1, max_length=200)
    title: str = Field(min_length=1, max_length=500)

    @field_validator("id", "title")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v.strip()
    source: str = Field(default="custom", pattern=r"^[A-Za-z0-9_\-:.]{1,64}$")
    summary: str | None = Field(default=None, max_length=5000)
    heat: float | None = Field(default=None, ge=0, le=1e15)
    url: str | None = Field(default=None, max_length=2000)
    lang: Lang | None = None


class IngestOut(BaseModel):
    ingested: int
    ids: list[str]


class SessionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    profile: str = "hud-web"
    frequency: Literal["low", "medium", "high"] = "medium"


class SessionOut(BaseModel):
    id: str
    token: str
    profile: str
    hud_url: str


class UtteranceIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=100_000)
    final: bool = True


class CaptionOut(BaseModel):
    topic_id: str
    text: str
    lines: list[str]
    score: float
    source: str
    ttl_ms: int
    title: str | None = None
    profile: str | None = None


class UtteranceOut(BaseModel):
    captions: list[CaptionOut]
    decision: dict[str, Any] | None = None
    warning: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = "trendlens"
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)


class LingzhuItem(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str = "user"
    type: Literal["text", "image"] = "text"
    text: str | None = None
    image_url: str | None = None


class LingzhuRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    message_id: str = Field(min_length=1, max_length=200)
    agent_id: str = Field(min_length=1, max_length=200)
    user_id: str | None = None
    message: list[LingzhuItem] = Field(min_length=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
