"""Text facts every part reads: the Han character range (and kana and Hangul beside it), the
bigrams and words of a text, heat written as people write it, Chinese numerals, and the longest
text read as one.

One range for Han characters (CJK unified ideographs, extension A, compatibility ideographs), so
no module matches a different set (Hangul and kana are not Han: Korean and Japanese text are
told apart by their own scripts).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["HAN", "HANGUL", "HAN_CHAR", "KANA", "MAX_TEXT_CHARS", "ZH_DIGITS", "ZH_PLACES", "format_heat",
           "han_bigrams", "has_han", "is_han"]

HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # for a character class: rf"[{HAN}]"
KANA = r"\u3040-\u30ff"  # hiragana and katakana
HANGUL = r"\uac00-\ud7af\u1100-\u11ff"  # syllables and jamo
HAN_CHAR = re.compile(rf"[{HAN}]")
_RUN = re.compile(rf"[{HAN}]+|[a-z0-9]+")

#: The longest text read as one: an utterance, a conversation window, a text embedded, a question
#: or a search. About a minute of fast speech; a longer one keeps its last part (or is refused).
MAX_TEXT_CHARS = 2000

#: Chinese numerals: each digit's value, and the place words between them (十 of 二十三).
ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
             "九": 9}
ZH_PLACES = {"十": 10, "百": 100, "千": 1000}


def has_han(text: str) -> bool:
    return HAN_CHAR.search(text) is not None


def is_han(char: str) -> bool:
    """Whether one character (the first of `char`) is Han."""
    return HAN_CHAR.match(char) is not None


def _compact(value: float, unit: float, suffix: str) -> str:
    scaled = value / unit
    return (f"{scaled:.1f}".removesuffix(".0") if scaled < 10 else f"{scaled:.0f}") + suffix


def format_heat(heat: float | None, lang: str) -> str:
    """Heat as people write it, the same in captions, the digest, chat and MCP: 9999 / 1.2万 / 1854万 /
    3.1亿 in Chinese, 412 / 1k / 46k / 1.5M in English; "" for none."""
    if heat is None or heat <= 0:
        return ""
    steps = ((1e8, "亿"), (1e4, "万")) if lang == "zh" else ((1e9, "B"), (1e6, "M"), (1e3, "k"))
    for unit, suffix in steps:
        if heat >= unit:
            return _compact(heat, unit, suffix)
    return f"{heat:.0f}"


def han_bigrams(text: str) -> list[str]:
    """The bigrams of each Han run and the Latin words and numbers of `text` (NFKC, lower case)."""
    out: list[str] = []
    for run in _RUN.findall(unicodedata.normalize("NFKC", text).lower()):
        if HAN_CHAR.match(run):
            out.extend(run[i:i + 2] for i in range(len(run) - 1)) if len(run) > 1 else out.append(run)
        else:
            out.append(run)
    return out
