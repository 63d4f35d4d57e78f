"""Print captions in a box to a text stream: for the CLI and for eyeballing a profile."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..captions.caption import Caption
from ..captions.graphemes import graphemes
from ..captions.widths import column_width

__all__ = ["StdoutDisplay", "frame_caption"]


def _columns(text: str) -> int:
    return sum(column_width(g) for g in graphemes(text))


def frame_caption(caption: Caption) -> str:
    """The caption's lines in a box, padded by terminal width (CJK counts 2)."""
    label = f" {caption.source or 'caption'} · {caption.score:.2f} "
    inner = max([_columns(line) for line in caption.lines] + [_columns(label) + 1])
    top = "┌─" + label + "─" * (inner + 1 - _columns(label)) + "┐"
    body = ["│ " + line + " " * (inner - _columns(line)) + " │" for line in caption.lines]
    return "\n".join([top, *body, "└" + "─" * (inner + 2) + "┘"])


class StdoutDisplay:
    """Writes each caption framed in a box; expired captions are skipped."""

    name = "stdout"

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    @property
    def stream(self) -> TextIO:
        # Resolved late so pytest's capsys (which swaps sys.stdout) sees the output.
        return self._stream or sys.stdout

    async def show(self, caption: Caption) -> bool:
        if caption.expired(time.time()):
            return False
        print(frame_caption(caption), file=self.stream, flush=True)
        return True

    async def clear(self, session_id: str | None = None) -> None:
        return None  # a terminal keeps its scrollback; there is nothing to take down

    async def aclose(self) -> None:
        return None
