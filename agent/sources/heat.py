"""Turn the heat texts platforms print ("1479 万热度", "3.1亿", "200,000+", "1.2M") into numbers."""

from __future__ import annotations

import math
import re

__all__ = ["parse_heat"]

_CJK_UNITS = {"万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8, "千": 1e3, "百": 1e2}
_LATIN_UNITS = {"k": 1e3, "m": 1e6, "b": 1e9, "w": 1e4}
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*(万|萬|亿|億|千|百|[kKmMbBwW](?![a-zA-Z]))?")
# "破万" (past ten thousand) and friends carry a unit but no digits.
_WORD_ONLY = re.compile(r"[破过超近]\s*(万|萬|亿|億|千)")


def parse_heat(value: object) -> float | None:
    """Return the heat as a number, or None when there is nothing numeric in it.

    Accepts ints/floats (returned as float) and text with thousands separators,
    a trailing '+', CJK units (万/亿) and Latin suffixes (k/M/B).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
        return number if math.isfinite(number) and number >= 0 else None
    text = str(value).strip()
    if not text:
        return None
    compact = re.sub(r"(?<=\d)[,，_ ](?=\d{3}\b)", "", text)
    match = _NUMBER.search(compact)
    if match is None:
        word = _WORD_ONLY.search(compact)
        return _CJK_UNITS[word.group(1)] if word else None
    number = float(match.group(1))
    unit = match.group(2)
    if unit:
        number *= _CJK_UNITS.get(unit) or _LATIN_UNITS[unit.lower()]
    return round(number, 2)
