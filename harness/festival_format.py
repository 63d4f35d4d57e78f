"""The shared format of a festival night's conversations (`../shared/devsets/festival-<night>.README.md`), checked
as it is read: a night nobody here has seen is judged the way the dev nights are, so a file that is not in the
format stops the eval with one line naming the field, not with a traceback deep in the scoring.

Only what the eval reads is checked; the format's other fields (`about`, `expect`, `near`, `generic` …) pass
as they are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from harness.story_days import NightError

__all__ = ["read_devset"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Item(_Open):
    source: str
    title: str


class Trend(_Open):
    id: str
    items: list[Item]


class Line(_Open):
    text: str
    kind: Literal["trend", "cont", "greeting", "small"]
    trend: str | None = None
    gist: str | None = None

    @model_validator(mode="after")
    def _names_its_meme(self) -> Line:
        if self.kind in ("trend", "cont") and not self.trend:
            raise ValueError(f"a {self.kind} line names its meme ('trend')")
        return self


class Conversation(_Open):
    id: str
    lang: Literal["zh", "en"]
    lines: list[Line]


class Night(_Open):
    trends: list[Trend]
    conversations: list[Conversation]

    @model_validator(mode="after")
    def _memes_are_known(self) -> Night:
        known = {t.id for t in self.trends}
        for conv in self.conversations:
            for i, line in enumerate(conv.lines):
                if line.trend is not None and line.trend not in known:
                    raise ValueError(f"conversation {conv.id!r}, line {i}: no trend is named {line.trend!r}")
        return self


def read_devset(path: Path) -> dict[str, Any]:
    """A festival night's conversations as the eval reads them (plain JSON), once they are known to be in the format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        Night.model_validate(data)
    except (OSError, UnicodeDecodeError) as exc:
        raise NightError(f"{path}: cannot be read ({type(exc).__name__})") from None
    except json.JSONDecodeError as exc:
        raise NightError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise NightError(f"{path}: {where}: {first['msg']} ({exc.error_count()} problem(s))") from None
    return data
