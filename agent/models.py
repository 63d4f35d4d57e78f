"""Typed values that cross module boundaries: a trending `Topic` and its pieces."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .platforms import caption_label
from .text import KANA, has_han

__all__ = ["Lang", "Topic", "Trend", "detect_lang", "printable", "stable_id", "utcnow", "zh_or_en"]

_KANA_CHAR = re.compile(f"[{KANA}]")

# control characters (C0 but tab, newline and return; DEL; C1) and lone surrogates: no reader shows
# them, and PostgreSQL refuses a NUL (a whole fetch cycle's transaction with it)
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` without control characters: upstream text is cleaned once, where it becomes a `Topic`."""
    return _CONTROLS.sub("", text)

Lang = Literal["zh", "en", "ja", "other"]
Trend = Literal["new", "rising", "falling", "steady"]  # where a topic or story is heading on its lists


def utcnow() -> datetime:
    return datetime.now(UTC)


def stable_id(*parts: str) -> str:
    """A short id that stays the same for the same text across fetch cycles.

    Used where a platform gives no id of its own (e.g. a hot-search word):
    NFKC-normalised, case-folded and whitespace-collapsed, so cosmetic changes
    upstream do not split one item's heat history in two.
    """
    norm = "\x1f".join(" ".join(unicodedata.normalize("NFKC", p).casefold().split()) for p in parts)
    return hashlib.blake2s(norm.encode("utf-8"), digest_size=8).hexdigest()


def detect_lang(text: str) -> Lang:
    """Cheap script-based language guess: enough to route CJK vs Latin handling."""
    if _KANA_CHAR.search(text):
        return "ja"
    if has_han(text):
        return "zh"
    if any(ch.isascii() and ch.isalpha() for ch in text):
        return "en"
    return "other"


def zh_or_en(text: str) -> Literal["zh", "en"]:
    """The language a text is ranked and captioned in: "zh" for Han or kana script, else "en"."""
    return "zh" if detect_lang(text) in ("zh", "ja") else "en"


class Topic(BaseModel):
    """One item of one platform's hot list, as observed at `fetched_at`."""

    model_config = ConfigDict(frozen=True)

    source: str
    item_id: str = Field(description="stable id within the source")
    title: str
    summary: str | None = None
    rank: int | None = Field(default=None, description="1-based position on the list")
    heat: float | None = Field(default=None, description="heat as a number")
    heat_text: str | None = Field(default=None, description="heat as the platform printed it")
    url: str | None = None
    lang: Lang = "other"
    fetched_at: datetime = Field(default_factory=utcnow)
    extra: dict[str, Any] = Field(default_factory=dict)
    ref: str | None = Field(default=None, description="explicit global id: ingested topics keep their owner's id")

    @field_validator("source", "item_id", "summary", "heat_text", "url", "ref")
    @classmethod
    def _printable(cls, v: str | None) -> str | None:
        return printable(v) if v is not None else None

    @field_validator("title")
    @classmethod
    def _title_not_blank(cls, v: str) -> str:
        v = " ".join(printable(v).split())
        if not v:
            raise ValueError("title is blank")
        return v

    @property
    def id(self) -> str:
        """Globally unique id: `<source>:<item_id>`, unless the topic came with its own."""
        return self.ref or f"{self.source}:{self.item_id}"

    def public(self) -> dict[str, Any]:
        """The JSON shape shown to users (CLI `--json`, API)."""
        data = self.model_dump(mode="json", exclude={"ref"})
        data["id"] = self.id
        data["platform"] = caption_label(self.source)  # a run-time platform's own name (36氪), not its id
        return data
