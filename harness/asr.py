"""Text as a streaming speech recogniser delivers it, for the evaluations' ASR mode.

A written line (a news description, a question excerpt, a line of chat) becomes what the
glasses' speech-to-text sends for it:

* no punctuation: Chinese runs on without a mark, English words are separated by spaces only
  (an apostrophe inside a word is spelling, and stays: "don't");
* English lower-cased;
* numbers as a recogniser without inverse text normalisation writes them: spelled out in
  English ("shenzhou nineteen", "twenty twenty five", "three point zero"), Chinese numerals
  in Chinese ("神舟十九号", "二零二五年", "百分之五十");
* split in two utterances of one session, at the middle (a word boundary in English), as a
  recogniser's endpointer cuts a long sentence at a pause.

The transform is deterministic, so an ASR-mode figure can be reproduced exactly.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["asr_pieces", "asr_text", "say_number"]

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
        "sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ZH_DIGITS = "零一二三四五六七八九"
_NUMBER = re.compile(r"(\d+(?:\.\d+)?)(%?)")


def _en_int(n: int) -> str:
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            rest = n % size
            return f"{_en_int(n // size)} {name}" + ("" if rest == 0 else " " + _en_int(rest))
    raise AssertionError(n)


def _en_year(n: int) -> str:
    """1984 as "nineteen eighty four", 2025 as "twenty twenty five", 2005 as "two thousand five"."""
    hi, lo = divmod(n, 100)
    if 2000 <= n < 2010:
        return _en_int(n)
    if lo == 0:
        return f"{_en_int(hi)} hundred"
    return f"{_en_int(hi)} {'oh ' + _ONES[lo] if lo < 10 else _en_int(lo)}"


def _zh_int(n: int) -> str:
    if n < 10:
        return _ZH_DIGITS[n]
    for size, name in ((10**8, "亿"), (10**4, "万")):
        if n >= size:
            rest = n % size
            gap = "零" if 0 < rest < size // 10 else ""
            return _zh_int(n // size) + name + ("" if rest == 0 else gap + _zh_int(rest))
    out = ""
    digits = str(n)
    for k, ch in enumerate(digits):
        place = len(digits) - 1 - k
        d = int(ch)
        if d == 0:
            if not out.endswith("零") and int(digits[k:]) != 0:
                out += "零"
            continue
        out += ("" if d == 1 and place == 1 and not out else _ZH_DIGITS[d]) + ("", "十", "百", "千")[place]
    return out


def say_number(number: str, lang: str, *, year: bool = False) -> str:
    """A written number ("19", "3.0", "2025") as a recogniser writes it in `lang`."""
    whole, _, frac = number.partition(".")
    if lang == "zh":
        said = "".join(_ZH_DIGITS[int(d)] for d in whole) if year or len(whole) > 9 else _zh_int(int(whole))
        return said + ("点" + "".join(_ZH_DIGITS[int(d)] for d in frac) if frac else "")
    if len(whole) > 9:
        said = " ".join(_ONES[int(d)] for d in whole)
    else:
        n = int(whole)
        said = _en_year(n) if (year or (len(whole) == 4 and 1100 <= n < 2100)) else _en_int(n)
    return said + (" point " + " ".join(_ONES[int(d)] for d in frac) if frac else "")


def _numbers(text: str, lang: str) -> str:
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # 1,000 → 1000

    def spell(m: re.Match[str]) -> str:
        number, percent = m.group(1), m.group(2)
        year = lang == "zh" and text[m.end() : m.end() + 1] == "年" and len(number) == 4
        said = say_number(number, lang, year=year)
        if percent:
            return "百分之" + said if lang == "zh" else f" {said} percent "
        return said if lang == "zh" else f" {said} "

    return re.sub(r"(\w) +'(?=\w)", r"\1'", _NUMBER.sub(spell, text))  # "19's" → "nineteen's"


def _strip_punctuation(text: str, lang: str) -> str:
    out = []
    for k, ch in enumerate(text):
        cat = unicodedata.category(ch)
        if ch == "'" and 0 < k < len(text) - 1 and text[k - 1].isalpha() and text[k + 1].isalpha():
            out.append(ch)
        elif cat[0] in "PS" or ch.isspace():
            out.append(" ")
        else:
            out.append(ch)
    words = "".join(out).split()
    if lang != "zh":
        return " ".join(words)
    # Chinese recognisers put no space between Han characters; Latin words keep theirs
    joined = ""
    for w in words:
        if joined and joined[-1].isascii() and joined[-1].isalnum() and w[0].isascii() and w[0].isalnum():
            joined += " "
        joined += w
    return joined


def asr_text(text: str, lang: str) -> str:
    """`text` as one recognised utterance: numbers spoken, punctuation gone, English lower-cased."""
    norm = unicodedata.normalize("NFKC", text)
    said = _strip_punctuation(_numbers(norm, lang), lang)
    return said.lower() if lang == "en" else said


def asr_pieces(text: str, lang: str) -> tuple[str, ...]:
    """`text` as two consecutive utterances, cut at the middle (a word boundary in English); one
    when it is a single word."""
    said = asr_text(text, lang)
    mid = len(said) // 2
    if " " in said and lang == "en":
        spaces = [k for k, ch in enumerate(said) if ch == " "]
        mid = min(spaces, key=lambda k: abs(k - mid))
    first, second = said[:mid].strip(), said[mid:].strip()
    return (first, second) if first and second else (said,)
