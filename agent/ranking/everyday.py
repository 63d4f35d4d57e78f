"""Greetings and customs are not news: a line that only says an everyday phrase gets no caption.

On a festival night the hot lists carry the night's own phrases (a greeting as a hashtag, a custom
as an entry), and the table says them all evening: "新年快乐" as a toast is not a question about
the list entry that says it. The words of everyday phrases come from a fixed sample of greetings,
wishes and festival customs (`background/greetings.txt`, synthetic, written from general knowledge
of the calendar's festivals, provenance in `background/PROVENANCE.md`), never from a day's lists.

A match is *only everyday* when the line does not treat it as news (`asks`: a question of what or
why, or words that point at news: 热搜, 听说, trending, did you see …) and either the terms the line and
the title share are all everyday words, or they share none and the line or the title is mostly everyday
words (a greeting matched by meaning alone, in either language). A yes-or-no question or a "who" is
asked of the table ("年夜饭都上齐了吗", "谁包的饺子"), not of a list entry. The live gate drops such a
match, and such a match makes the line about nothing new (`Ranker.rank`); a question about the same
entry ("新年快乐那首歌是什么") still gets it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources

from ..text import han_bigrams
from .stopwords import CORE_EN, ZH_FUNCTION_CHARS

__all__ = ["EVERYDAY_SHARE", "asks", "everyday_phrase", "everyday_share", "only_customs", "only_everyday",
           "vocabulary"]

EVERYDAY_SHARE = 0.6  # a text whose terms are this share everyday words is an everyday phrase
_ASKS = re.compile(
    r"怎么|什么|为什么|为啥|啥|咋|是不是|哪个|听说|看到|看了|热搜|上榜|新闻|视频|梗|火了|刷到|"
    r"\b(?:what|why|how|who|which|did you|have you|heard|saw|seen|trending|viral|news|video|meme)\b",
    re.IGNORECASE)


@cache
def vocabulary() -> frozenset[str]:
    """The terms of the everyday-phrase sample (Han bigrams, Latin words)."""
    text = resources.files("agent.ranking").joinpath("background/greetings.txt").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return frozenset(t for ln in lines for t in _terms(ln))


def _terms(text: str) -> set[str]:
    return {t for t in han_bigrams(text) if _word(t)}


def _word(term: str) -> bool:
    """A bigram that can be a word: no grammatical character (的年 of "小区的年夜饭" is a seam)."""
    return term not in CORE_EN and not (set(term) & ZH_FUNCTION_CHARS)


def only_customs(terms: Iterable[str]) -> bool:
    """Whether the words among `terms` (bigrams two headlines share, say) are everyday words and nothing
    else: a festival custom or greeting, its seams with the words around it aside."""
    words = {t for t in terms if _word(t)}
    return bool(words) and words <= vocabulary()


def _reaching_into_everyday(line: str, terms: set[str]) -> set[str]:
    """The bigrams of `terms` that overlap an everyday bigram where the line says them (年红 of
    "今年红包" reaches into 红包): the seam between two words, not a word of its own."""
    vocab = vocabulary()
    covered = {i + k for i in range(len(line) - 1) if line[i:i + 2] in vocab for k in (0, 1)}
    return {t for t in terms if any(line[i:i + 2] == t and ({i, i + 1} & covered) for i in range(len(line) - 1))}


def asks(line: str) -> bool:
    """Whether the line treats what it says as news: it asks, or points at a list or a video."""
    return _ASKS.search(line) is not None


def everyday_phrase(text: str) -> bool:
    """A line that is an everyday phrase (a greeting, a toast, a wish) and asks about nothing."""
    return not asks(text) and everyday_share(text) >= EVERYDAY_SHARE


def everyday_share(text: str) -> float:
    """The share of a said line's terms that are everyday words. A bigram reaching into an everyday word is
    the seam between two words, not one of its own (乐身 of "新年快乐身体健康", which a recogniser writes with
    no comma between the wishes), and is not counted."""
    terms = _terms(text)
    return _share(terms - _reaching_into_everyday(text, terms - vocabulary()))


def _title_share(title: str) -> float:
    """The share of a list title's terms that are everyday words: a title is written, and what runs on
    between its words is what it says."""
    return _share(_terms(title))


def _share(terms: set[str]) -> float:
    return len(terms & vocabulary()) / len(terms) if terms else 0.0


def only_everyday(line: str, title: str) -> bool:
    """Whether `line` matches `title` on everyday phrases alone (see the module)."""
    if asks(line):
        return False
    shared = _terms(line) & _terms(title)
    if shared:
        return shared - _reaching_into_everyday(line, shared - vocabulary()) <= vocabulary()
    return everyday_share(line) >= EVERYDAY_SHARE or _title_share(title) >= EVERYDAY_SHARE
