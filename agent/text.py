"""Text facts every part reads: the Han character range, and the bigrams and words of a text.

One range for Han characters (CJK unified ideographs, extension A, compatibility ideographs), so
no module matches a different set (Hangul and kana are not Han: Korean and Japanese text are
told apart by their own scripts).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["HAN", "HAN_CHAR", "han_bigrams", "has_han"]

HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # for a character class: rf"[{HAN}]"
HAN_CHAR = re.compile(rf"[{HAN}]")
_RUN = re.compile(rf"[{HAN}]+|[a-z0-9]+")


def has_han(text: str) -> bool:
    return HAN_CHAR.search(text) is not None


def han_bigrams(text: str) -> list[str]:
    """The bigrams of each Han run and the Latin words and numbers of `text` (NFKC, lower case)."""
    out: list[str] = []
    for run in _RUN.findall(unicodedata.normalize("NFKC", text).lower()):
        if HAN_CHAR.match(run):
            out.extend(run[i:i + 2] for i in range(len(run) - 1)) if len(run) > 1 else out.append(run)
        else:
            out.append(run)
    return out
