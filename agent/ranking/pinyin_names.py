"""Names said in pinyin: "Yue Yunpeng", "Xiao Ni" → the Han bigrams of the titles that read so.

An English speaker says a Chinese name as its romanisation, which no dictionary lists for most
people on a hot list. `PinyinNames` keeps the toneless pinyin of every Han bigram the index
holds (pypinyin, memoised per bigram, so a re-index reads only new ones); an English line's words
that are pinyin and no English word are read as syllables, and each pair of syllables said in a row
names the bigrams that read so ("yun peng" → 云鹏). A name spelt in another romanisation ("Nigmat" for
尼格买提) is read by its consonants instead (`spelt`), as a transliteration is written by the sound.
The bridge `pinyin` of `bridges.py`.

The same table reads a Chinese line a recogniser wrote: its commonest error is a character heard
right and written as another of the same sound, and a name is where it costs most (刘涛 written
刘掏 is a bigram no title holds, and a two-character name is the whole of what the line says of
her). `misheard` respells a run of the line that no title holds as the run of the index that reads
the same where that run is a person's name in a headline.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Container, Iterable
from collections.abc import Set as AbstractSet
from functools import cache, lru_cache

from ..text import HAN_CHAR
from .pacing import paced

__all__ = ["MISHEARD_CHARS", "PinyinNames", "skeleton", "syllables"]

_NAME_WORD = re.compile(r"[A-Za-z]+")
_SENTENCE_END = re.compile(r"(?:^|[.!?])[\s\"'(]*$")  # what comes before a sentence's first word
MAX_SYLLABLE = 6  # zhuang, shuang
_VOWELS = re.compile(r"[aeiouvyw]")
# A name spelt in another romanisation (Uyghur, a star's English name: "Nigmat" for 尼格买提, "Dilraba" for
# 迪丽热巴) is no pinyin, but its consonants are the pinyin's: at least this many of them, and a name of
# SOUNDED_CHARS characters at most, so that a short word ("Musk": m-s-k) matches no run of three characters.
SKELETON_LEAST = 4
SOUNDED_CHARS = (3, 5)
MAX_CONSONANTS = 4  # of one syllable: zhuang -> zhng


#: The runs of a Chinese line `misheard` reads as a name, in characters: a two-character name to a
#: four-character one (a fifth character is a word after it more often than a name).
MISHEARD_CHARS = (2, 4)


@cache
def _reading(char: str) -> str:
    """A Han character's toneless reading, out of context (a character, not a line, is what is kept)."""
    from pypinyin import Style, lazy_pinyin

    return lazy_pinyin(char, style=Style.NORMAL)[0]


@lru_cache(maxsize=1 << 18)
def _bigram_reading(term: str) -> tuple[str, ...]:
    """A Han bigram's toneless reading in context, kept across indexes (a list's words come back every cycle)."""
    from pypinyin import Style, lazy_pinyin

    return tuple(lazy_pinyin(term, style=Style.NORMAL))


def _a_name_heard(text: str, at: int, alike: str, people: Callable[[str], Iterable[str]],
                  words: Container[str]) -> bool:
    """Whether the run of `text` at `at` is `alike` with characters of a person's name in it heard as others of the
    same sound. A character that makes a word with the one beside it (`words`: 流 of 流畅, "fluent", which reads
    as 刘畅; 媒 of 媒体, the 美 the tagger took for a name in "…向美出售") was said as written: read first, as it
    costs nothing, where asking which names the headlines hold tags them."""
    said = text[at:at + len(alike)]
    wrong = [k for k, (a, b) in enumerate(zip(said, alike, strict=True)) if a != b]
    if not wrong or len(wrong) > max(1, len(said) // 2):
        return False
    if any(text[max(0, at + k - 1):at + k + 1] in words or text[at + k:at + k + 2] in words for k in wrong):
        return False
    for person in people(alike):
        start = alike.find(person)
        if start < 0 or start > wrong[0] or wrong[-1] >= start + len(person):
            continue
        if text[at + start:at + start + len(person)] not in words:
            return True
    return False


def skeleton(word: str) -> str:
    """The consonants of a romanised word in order ("nigemaiti" and "Nigmat": ngmt)."""
    return _VOWELS.sub("", word.lower())


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


@cache
def _readings(char: str, usual: str) -> tuple[str, ...]:
    """Every toneless reading of a Han character, the one read in context (`usual`) first."""
    from pypinyin import Style, pinyin

    found = pinyin(char, style=Style.NORMAL, heteronym=True)
    others = [r for r in (found[0] if found else ()) if r != usual and r.isascii() and r.isalpha()]
    return (usual, *others)


def _read_as_pinyin(said: list[str], english: AbstractSet[str]) -> list[list[str] | None]:
    """Each word's syllables where it is read as pinyin: a word no English word, a capitalised surname
    that is one (Zhang, Sun, Tan: a length, a star, a colour) next to such a word ("Zhang Ruonan"), or a
    capitalised given name that is one (a city's: Yichun) after such a surname ("Shan Yichun")."""
    words = [w.lower() for w in said]
    cuts = [syllables(w) if len(w) >= 2 else None for w in words]
    strict = [c is not None and w not in english for w, c in zip(words, cuts, strict=True)]
    out: list[list[str] | None] = []
    for i, (word, cut) in enumerate(zip(said, cuts, strict=True)):
        beside = (i > 0 and strict[i - 1]) or (i + 1 < len(said) and strict[i + 1])
        surname = cut is not None and len(cut) == 1 and word[:1].isupper() and beside
        after = i > 0 and strict[i - 1] and len(cuts[i - 1] or ()) == 1 and said[i - 1][:1].isupper()
        given = cut is not None and len(cut) == 2 and word[:1].isupper() and after
        out.append(cut if strict[i] or surname or given else None)
    return out


class PinyinNames:
    """Toneless pinyin pairs → the index's Han bigrams that read so."""

    def __init__(self) -> None:
        self._read: dict[str, str] = {}  # bigram -> "yunpeng"
        self._terms: dict[str, set[str]] = defaultdict(set)
        # the index's Han characters by the consonants of their readings, and per character the characters
        # that follow it in a bigram, by theirs (`sounded`)
        self._sounding: dict[str, set[str]] = defaultdict(set)
        self._after: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self._lock = threading.Lock()
        # the vocabularies read last: the index being published and the one queries may still be reading
        self._for: deque[object] = deque(maxlen=2)

    def read(self, owner: object) -> bool:
        """Whether the vocabulary `owner` names has been read."""
        return any(owner is seen for seen in tuple(self._for))

    def refresh(self, vocabulary: Iterable[str], owner: object) -> None:
        """Read the bigrams of `vocabulary` not read before (once per index, `owner` names it). Called by the
        ranker's build, so a query never waits for it: the first read of a 100k index is seconds of pypinyin,
        done outside the lock (a query reading the table meanwhile is not held up) with the build's pacing."""
        if self.read(owner):
            return
        new = [(term, _bigram_reading(term)) for term in paced(list(vocabulary), 1024)
               if len(term) == 2 and term not in self._read and HAN_CHAR.match(term) and HAN_CHAR.match(term[1])]
        with self._lock:
            for term, read in new:
                key = "".join(read)
                self._read[term] = key
                self._terms[key].add(term)
                if len(read) == 2:
                    # a surname read its own way (单 shan, 曾 zeng, 朴 piao) names too; a given name's
                    # character keeps the reading in context (可 as ge made 胡可 "Hu Ge")
                    for a in _readings(term[0], read[0])[1:]:
                        self._terms[a + read[1]].add(term)
                    first, second = skeleton(read[0]), skeleton(read[1])
                    if first and second:  # a character that sounds no consonant is in no name read so
                        self._sounding[first].add(term[0])
                        self._after[term[0]][second].add(term[1])
            self._for.append(owner)

    def names(self, line: str, english: AbstractSet[str] = frozenset()) -> list[tuple[list[str], int]]:
        """Per name an English line says in pinyin (a run of pinyin words): the bigrams it names, and how
        many places between two of its syllables there are (a bigram for each, or several that read
        alike). `english` are words that are English (a word of both, such as "she" or "man", is read
        as English; read as it is, not copied: the dictionary's words are a hundred thousand)."""
        run: list[str] = []
        words = 0
        runs: list[tuple[list[str], int]] = []
        said = _NAME_WORD.findall(line)
        capital = False  # the case of the run's first word
        for word, cut in zip(said, _read_as_pinyin(said, english), strict=True):
            if run and (not cut or word[:1].isupper() != capital):
                # a name written with capitals ends where they do: "Zhang Ruonan wore" is no five-syllable name
                runs.append((run, words))
                run, words = [], 0
            if cut:
                if not run:
                    capital = word[:1].isupper()
                run.extend(cut)
                words += 1
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

    def said_alone(self, line: str, english: AbstractSet[str] = frozenset()) -> list[str]:
        """The bigrams a capitalised word of two pinyin syllables, said alone, reads as: a panda's, a place's or a
        shop's name of two characters ("Huahua", "Hengdian", "Hema"), which `names` leaves out because such a
        word is as often a word of the language ("shanghai" reads 伤害 too). The caller keeps only those a
        headline holds where a name stands and no dictionary lists (`Ranker._bridged`)."""
        said = _NAME_WORD.findall(line)
        return [term for word, cut in zip(said, _read_as_pinyin(said, english), strict=True)
                if cut is not None and len(cut) == 2 and word[:1].isupper()
                for term in sorted(self._terms.get(cut[0] + cut[1], ()))]

    def spelt(self, line: str, english: AbstractSet[str] = frozenset(), *, caseless: bool = False) -> list[str]:
        """The runs of the index's characters that a capitalised word of an English line, neither English nor
        pinyin, sounds like (`sounded`): a name in another romanisation ("Nigmat", "Dilraba"). `caseless`: every
        such word, capital or not (a recogniser that writes none)."""
        return [run for run, _ in self.spelt_where(line, english, caseless=caseless)]

    def spelt_where(self, line: str, english: AbstractSet[str] = frozenset(), *,
                    caseless: bool = False) -> list[tuple[str, bool]]:
        """`spelt`, each run with whether its word's capital says a name: one inside a sentence, where English
        writes a capital for nothing else ("Hanging stockings…" opens one, and 侯永永 sounds h-ng-ng too)."""
        out: list[tuple[str, bool]] = []
        for found in _NAME_WORD.finditer(line):
            word = found.group()
            if not (caseless or word[:1].isupper()) or word.lower() in english or syllables(word.lower()) is not None:
                continue
            inside = word[:1].isupper() and _SENTENCE_END.search(line[:found.start()]) is None
            out.extend((run, inside) for run in self.sounded(word))
        return out

    def misheard(self, text: str, held: Container[str], people: Callable[[str], Iterable[str]],
                 words: Container[str] = frozenset()) -> str:
        """`text` with each name a recogniser wrote in characters of the same sound spelt as the headlines spell
        it: a run of `MISHEARD_CHARS` Han characters holding a bigram no indexed text holds (`held`: the index's
        terms) that reads as a run of the index's bigrams, where the characters that differ (at most half the
        run's, one of two) all fall inside a person a headline holding that run names (`people`: the tagger's
        PER of those headlines), and the line's characters there are no word of `words` (a dictionary's). The
        longest run first, each character respelt once; a line whose bigrams the index holds is as it was."""
        least, most = MISHEARD_CHARS
        n = len(text)
        han = [bool(HAN_CHAR.match(c)) for c in text]
        # per place, whether the bigram starting there is one no indexed text holds: only a run holding one is read
        lacking = [han[k] and han[k + 1] and text[k:k + 2] not in held for k in range(n - 1)]
        if not any(lacking):
            return text
        reads = [_reading(c) if h else "" for c, h in zip(text, han, strict=True)]
        out: list[str] = []
        at = 0
        while at < n:
            found = None
            if any(lacking[at:at + most - 1]) and han[at] and reads[at] + reads[at + 1] in self._terms:
                sizes = [size for size in range(least, min(most, n - at) + 1)
                         if all(han[at:at + size]) and any(lacking[at:at + size - 1])]
                by_size = self._reading_as(reads[at:at + max(sizes)]) if sizes else {}
                for size in reversed(sizes):
                    found = next((alike for alike in by_size.get(size, ())
                                  if _a_name_heard(text, at, alike, people, words)), None)
                    if found is not None:
                        break
            if found is None:
                out.append(text[at])
                at += 1
            else:
                out.append(found)
                at += len(found)
        return "".join(out)

    def _reading_as(self, reads: list[str]) -> dict[int, list[str]]:
        """Per length from two characters to `reads`' own, the runs of the index's bigrams that read as the
        start of `reads` (a run's syllables), each two side by side sharing a character."""
        out: dict[int, list[str]] = {}
        with self._lock:
            found = sorted(self._terms.get(reads[0] + reads[1], ()))
            for size in range(2, len(reads) + 1):
                if size > 2:
                    after = sorted(self._terms.get(reads[size - 2] + reads[size - 1], ()))
                    found = [r + t[1] for r in found for t in after if t[0] == r[-1]]
                if not found:
                    break
                out[size] = found
        return out

    def sounded(self, word: str) -> list[str]:
        """Each run of the index's characters whose pinyin has `word`'s consonants in order (`skeleton`), as
        a transliteration is written by the sound of the name. Each character sounds at least one consonant
        and every two side by side are a bigram of the index; the caller says which runs a headline holds."""
        target = skeleton(word)
        if len(target) < SKELETON_LEAST:
            return []
        least, most = SOUNDED_CHARS
        found: list[str] = []

        def extend(run: str, at: int) -> None:
            if at == len(target):
                if len(run) >= least:
                    found.append(run)
                return
            if len(run) == most:
                return
            after = self._after.get(run[-1])
            if after is None:
                return
            for size in range(1, MAX_CONSONANTS + 1):
                for char in after.get(target[at:at + size], ()):
                    extend(run + char, at + size)

        with self._lock:
            for size in range(1, MAX_CONSONANTS + 1):
                for char in self._sounding.get(target[:size], ()):
                    extend(char, size)
        return sorted(set(found))
