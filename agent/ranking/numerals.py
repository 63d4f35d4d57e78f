"""Numbers said in words, as the digits a hot-list title writes them with.

Speech recognisers without inverse text normalisation write what was said: "神舟十九号",
"二零二五年", "shenzhou nineteen", "twenty twenty five", while titles write "神舟19号" and
"2025". The lexical channel would see no shared term. `spoken_numbers` reads the numbers a
text says in words and gives their digits, which the tokeniser adds beside the words it
already yields (nothing is taken away, so written text tokenises as before plus these terms).

Chinese: a run of two or more numerals ("十九", "二零二五", "一百零五"), or one numeral
before a counter ("三月", "五号"). A run without a place character (十 百 千 万 亿) is read
digit by digit, as years are said. English: a run of number words ("nineteen", "twenty
five", "two thousand five"); two complete parts below a hundred in a row are read as a year
("nineteen eighty four" 1984). A decimal point ("三点五", "three point five") splits the
number in two terms, as the tokeniser splits "3.5".
"""

from __future__ import annotations

import re

from ..text import ZH_DIGITS, ZH_PLACES

__all__ = ["spoken_numbers"]

_ZH_SECTION = {"万": 10**4, "亿": 10**8}
_ZH_NUM = "零〇一二两三四五六七八九十百千万亿"
# two or more numerals, or one before a counter (the counter is not part of the number)
_ZH_POINT = re.compile(f"([{_ZH_NUM}]+)点([零〇一二两三四五六七八九]+)")
_ZH_RUN = re.compile(f"[{_ZH_NUM}]{{2,}}|[{_ZH_NUM}](?=[年月日号岁个名位次届条元块])")

_EN_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_EN_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
            if w != "_"}
_EN_SCALE = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}


def _zh_value(run: str) -> int:
    if not any(ch in ZH_PLACES or ch in _ZH_SECTION for ch in run):
        return int("".join(str(ZH_DIGITS[ch]) for ch in run))
    total = section = digit = 0
    for ch in run:
        if ch in ZH_DIGITS:
            digit = ZH_DIGITS[ch]
        elif ch in ZH_PLACES:
            section += (digit or 1) * ZH_PLACES[ch]
            digit = 0
        else:
            total = (total + section + digit) * _ZH_SECTION[ch]
            section = digit = 0
    return total + section + digit


def _zh_numbers(text: str) -> list[str]:
    out = []
    for m in _ZH_RUN.finditer(text):
        run = m.group(0)
        if run.startswith(("万", "亿")):  # 万一, 亿万: words, not numbers
            continue
        out.append(str(_zh_value(run)))
    return out


class _EnglishRun:
    """One run of English number words being read: complete parts below a hundred become a year."""

    def __init__(self) -> None:
        self.parts: list[int] = []
        self.total = self.hundreds = self.words = 0
        self.small: int | None = None  # the part below a hundred being said

    def add(self, word: str) -> bool:
        """Read `word`; False when it is no number word (the run has ended)."""
        if word in _EN_SMALL or word in _EN_TENS:
            value = _EN_SMALL.get(word, _EN_TENS.get(word, 0))
            if self.small is None:
                self.small = value
            elif self.small >= 20 and self.small % 10 == 0 and 0 < value < 10:
                self.small += value
            else:  # "nineteen eighty": a new part
                self.parts.append(self.total + self.hundreds + self.small)
                self.total = self.hundreds = 0
                self.small = value
        elif word == "hundred" and self.small is not None:
            self.hundreds, self.small = self.small * 100, None
        elif word in _EN_SCALE and word != "hundred" and (self.small is not None or self.hundreds):
            self.total = (self.total + self.hundreds + (self.small or 0)) * _EN_SCALE[word]
            self.hundreds, self.small = 0, None
        else:
            return False
        self.words += 1
        return True

    def values(self) -> list[str]:
        if not self.words:
            return []
        parts = self.parts + [self.total + self.hundreds + (self.small or 0)]
        if len(parts) == 2 and all(p < 100 for p in parts) and 10 <= parts[0]:
            return [f"{parts[0]}{parts[1]:02d}"]  # a year said in two halves
        return [str(p) for p in parts]


def _en_numbers(words: list[str]) -> list[str]:
    out: list[str] = []
    run = _EnglishRun()
    for w in words + [""]:
        if run.add(w):
            continue
        if w == "and" and run.hundreds and run.small is None:
            continue  # "one hundred and five"
        # a lone "one" is mostly a pronoun ("that one")
        if not (run.words == 1 and run.small == 1):
            out.extend(run.values())
        run = _EnglishRun()
    return out


def spoken_numbers(text: str) -> list[str]:
    """The digits of the numbers `text` (NFKC, lower-cased) says in Chinese numerals or English words."""
    out: list[str] = []
    for m in _ZH_POINT.finditer(text):
        out.extend(str(_zh_value(side)) for side in (m.group(1), m.group(2)))
    out.extend(_zh_numbers(_ZH_POINT.sub(" ", text)))
    # words separated by anything but spaces (a comma, a full stop) belong to different numbers
    words = [w if w[0].isalpha() else "" for w in re.findall(r"[a-z]+|[^a-z\s]", re.sub(r"\bpoint\b", ".", text))]
    return out + _en_numbers(words)
