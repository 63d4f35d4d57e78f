"""Names said in pinyin: "Yue Yunpeng", "Xiao Ni" → the Han bigrams of the titles that read so.

An English speaker says a Chinese name as its romanisation, which no dictionary lists for most
people on a hot list. `PinyinNames` keeps the toneless pinyin of every Han bigram the index
holds (pypinyin, memoised per bigram, so a re-index reads only new ones); an English line's words
that are pinyin and no English word are read as syllables, and each pair of syllables said in a row
names the bigrams that read so ("yun peng" → 云鹏). The bridge `pinyin` of `bridges.py`.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Iterable
from functools import cache

from ..text import HAN_CHAR

__all__ = ["PinyinNames", "syllables"]

_NAME_WORD = re.compile(r"[A-Za-z]+")
MAX_SYLLABLE = 6  # zhuang, shuang


@cache
def _syllable_set() -> frozenset[str]:
    from pypinyin import Style, pinyin_dict

    out: set[str] = set()
    for readings in pinyin_dict.pinyin_dict.values():
        for reading in readings.split(","):
            from pypinyin.style import convert

            out.add(convert(reading, Style.NORMAL, strict=False))
    return frozenset(s for s in out if s.isascii() and s.isalpha())


def syllables(word: str) -> list[str] | None:
    """`word` cut into pinyin syllables (the fewest), or None when it is not pinyin."""
    known = _syllable_set()
    best: list[list[str] | None] = [None] * (len(word) + 1)
    best[0] = []
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - MAX_SYLLABLE), end):
            head = best[start]
            if head is not None and word[start:end] in known:
                cut = head + [word[start:end]]
                if best[end] is None or len(cut) < len(best[end] or []):
                    best[end] = cut
    return best[len(word)]


def _read_as_pinyin(said: list[str], english: set[str]) -> list[list[str] | None]:
    """Each word's syllables where it is read as pinyin: a word no English word, or a capitalised surname
    that is one (Zhang, Sun, Tan: a length, a star, a colour) next to such a word ("Zhang Ruonan")."""
    words = [w.lower() for w in said]
    cuts = [syllables(w) if len(w) >= 2 else None for w in words]
    strict = [c is not None and w not in english for w, c in zip(words, cuts, strict=True)]
    out: list[list[str] | None] = []
    for i, (word, cut) in enumerate(zip(said, cuts, strict=True)):
        beside = (i > 0 and strict[i - 1]) or (i + 1 < len(said) and strict[i + 1])
        surname = cut is not None and len(cut) == 1 and word[:1].isupper() and beside
        out.append(cut if strict[i] or surname else None)
    return out


class PinyinNames:
    """Toneless pinyin pairs → the index's Han bigrams that read so."""

    def __init__(self) -> None:
        self._read: dict[str, str] = {}  # bigram -> "yunpeng"
        self._terms: dict[str, set[str]] = defaultdict(set)
        self._lock = threading.Lock()
        self._for: object = None  # the vocabulary last read

    def read(self, owner: object) -> bool:
        """Whether the vocabulary `owner` names has been read."""
        return owner is self._for

    def refresh(self, vocabulary: Iterable[str], owner: object) -> None:
        """Read the bigrams of `vocabulary` not read before (once per index, `owner` names it)."""
        if owner is self._for:
            return
        from pypinyin import Style, lazy_pinyin

        with self._lock:
            for term in list(vocabulary):
                if len(term) == 2 and term not in self._read and HAN_CHAR.match(term) and HAN_CHAR.match(term[1]):
                    key = "".join(lazy_pinyin(term, style=Style.NORMAL))
                    self._read[term] = key
                    self._terms[key].add(term)
            self._for = owner

    def names(self, line: str, english: Iterable[str] = ()) -> list[tuple[list[str], int]]:
        """Per name an English line says in pinyin (a run of pinyin words): the bigrams it names, and how
        many places between two of its syllables there are (a bigram for each, or several that read
        alike). `english` are words that are English (a word of both, such as "she" or "man", is read
        as English)."""
        said = set(english)
        run: list[str] = []
        words = 0
        runs: list[tuple[list[str], int]] = []
        for cut in _read_as_pinyin(_NAME_WORD.findall(line), said):
            if cut:
                run.extend(cut)
                words += 1
            elif run:
                runs.append((run, words))
                run, words = [], 0
        if run:
            runs.append((run, words))
        out: list[tuple[list[str], int]] = []
        for r, n_words in runs:
            # one syllable alone is a hundred characters; one word of two syllables is more often a
            # place or a word ("shanghai" reads 伤害 too) than a name, which is said as "Liu Qian", "Yunpeng"
            if len(r) < 2 or (n_words == 1 and len(r) == 2):
                continue
            bigrams = [t for a, b in zip(r, r[1:], strict=False) for t in sorted(self._terms.get(a + b, ()))]
            if bigrams:
                out.append((bigrams, len(r) - 1))
        return out
