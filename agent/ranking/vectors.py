"""Text and vector preparation shared by every embedder, local or remote."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from ..text import MAX_TEXT_CHARS

__all__ = ["MAX_TEXT_CHARS", "Role"]

Role = Literal["query", "passage"]

# Longest text handed to a model: text.MAX_TEXT_CHARS. Both models stop at 512 tokens anyway;
# cutting the characters first keeps tokenisation of a pasted megabyte from costing seconds.


def _clip(texts: Sequence[str]) -> list[str]:
    out = []
    for t in texts:
        t = t if isinstance(t, str) else str(t)
        if len(t) > MAX_TEXT_CHARS:
            t = t[-MAX_TEXT_CHARS:]  # keep the most recent part of a conversation
        out.append(t)
    return out


def _normalise(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32, copy=False)
