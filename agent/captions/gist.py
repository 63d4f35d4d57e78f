"""The gist: the caption's last line says what the meme is, beyond the title it matched.

A title names a meme (a host "穿帮"); the wearer needs what happened. The gist is, in order:

1. a sentence of a member's own summary (Baidu `desc`, Zhihu excerpt), the matched item's first, then the
   members whose titles share most with the matched title (a story grown from one person's name holds each
   of their moments of the night, and the other moment's summary names the person too); another member's
   sentence that names one of a duo the matched title names and not the other tells the moment of the one it
   keeps (`_keeps`). A member whose headline opens with a speaker the matched title does not name (某主持人：…)
   tells what that speaker said, another moment: neither its summary nor its title is the gist
   (`_quotes_another`). Each without what the platform puts before every item that night: an opening
   clause or sentence that opens several summaries of one list (a date, "X月X日晚，某晚会播出。") says nothing about one
   item (`Openers` counts them from the held lists; nothing here names a day). A summary that shares
   no term with any title of the story is about something else: a Zhihu question's excerpt is often
   its asker's own musing ("这应该跟…一样吧"), not what happened. One that names the story in any
   sentence is about it throughout (a scene first, the city it is in last), but for a sentence that
   says the occasion (春晚 on a gala night, `StoryView.occasions`) and nothing of the story's titles:
   "某台春晚拉开帷幕。" opening an act's summary says only which night it is;
2. else another platform's title of the same story that adds what the matched title lacks
   (a co-host's joke about the slip, under the slip's own title). The function words every
   sentence has (什么, 一个) add nothing: "…魔术是什么数学原理？" does not outweigh "…带观众集体变魔术";
3. else the title of another entry of the matched item's own list that the link model ties to it
   strongly (`StoryView.akin`): a list often keeps two entries on one meme, one a quip ("X又整活了"),
   the other what happened ("X和Y第三次合作登台"). Two entries of one list join no story on their own
   (docs/stories.md), so on lists that explain little (Douyin titles, Zhihu questions without an
   excerpt) this is the only other wording of the meme there is. Last, because such a pair is
   sometimes two things of one person.

A sentence that adds nothing the title does not already say is no gist: the caption keeps its
title and meta lines alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Protocol

from ..ranking.names_said import people_in
from ..ranking.stopwords import ZH_STOP_BIGRAMS
from ..stories.terms import speaker_of
from ..text import han_bigrams

__all__ = ["MIN_NEW_TERMS", "OPENER_REPEATS", "Openers", "gist", "openers"]

OPENER_REPEATS = 3  # an opening that starts this many summaries of one list is the list's, not the item's
MIN_NEW_TERMS = 2  # a gist adds at least two terms (bigrams or words) the matched title lacks
_SENTENCE = re.compile(r"(?<=[。！？!?；;])")
_CLAUSE = re.compile(r"^[^，,。！？!?；;]{1,16}[，,]")


class _Item(Protocol):
    source: str
    title: str
    summary: str | None


def openers(summary: str) -> tuple[str, str]:
    """(the opening clause, the opening sentence) of a summary, the units a list repeats."""
    text = summary.strip()
    clause = m.group(0) if (m := _CLAUSE.match(text)) else ""
    sentence = next((s for s in _SENTENCE.split(text) if s.strip()), "")
    return clause, sentence.strip()


class Openers:
    """How many summaries of each list open with each clause and sentence (held items only)."""

    def __init__(self) -> None:
        self._counts: Counter[tuple[str, str]] = Counter()
        # kept as counts cross the bar, so reading it costs what repeats, not every held summary
        self._repeated: set[tuple[str, str]] = set()

    def add(self, source: str, summary: str | None) -> None:
        if summary:
            for unit in set(openers(summary)) - {""}:
                key = (source, unit)
                self._counts[key] += 1
                if self._counts[key] == OPENER_REPEATS:
                    self._repeated.add(key)

    def remove(self, source: str, summary: str | None) -> None:
        if summary:
            for unit in set(openers(summary)) - {""}:
                key = (source, unit)
                self._counts[key] -= 1
                if self._counts[key] < OPENER_REPEATS:
                    self._repeated.discard(key)
                if self._counts[key] <= 0:
                    del self._counts[key]

    def repeated(self) -> frozenset[tuple[str, str]]:
        """The openings of a list that start `OPENER_REPEATS` of its summaries or more."""
        return frozenset(self._repeated)


def _own_sentences(item: _Item, repeated: Callable[[str, str], bool]) -> list[str]:
    text = (item.summary or "").strip()
    while text:  # peel what the list opens every summary with, clause or sentence, as often as it repeats
        clause, sentence = openers(text)
        if sentence and repeated(item.source, sentence):
            text = text[len(sentence):].lstrip()
        elif clause and repeated(item.source, clause):
            text = text[len(clause):].lstrip()
        else:
            break
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _new_terms(text: str, known: set[str]) -> int:
    return len(set(han_bigrams(text)) - known - ZH_STOP_BIGRAMS)


def _past(text: str, occasion: Collection[str]) -> set[str]:
    """A text's bigrams with the occasion's words cut out, and the bigrams that reach into them
    (台春 of "总台春晚")."""
    for word in occasion:
        text = text.replace(word, "|")
    return set(han_bigrams(text))


def gist(topic: _Item, members: Sequence[_Item], repeated: Callable[[str, str], bool],
         occasion: Collection[str] = (), *, akin: Sequence[_Item] = ()) -> str | None:
    """The line that says what `topic`'s story is (see the module), or None. `occasion`: the
    occasion words of the held lists; `akin`: the entries of its own list tied to it, outside its story."""
    known = set(han_bigrams(topic.title))
    own = _past(topic.title, occasion) - ZH_STOP_BIGRAMS
    past = [(m, _past(m.title, occasion)) for m in members if m is not topic]  # each headline read once
    # the members nearest the matched title first (heat order within a tie): a story of one person's two
    # moments of a night holds both, and the other moment's summary names the person too
    ordered: Iterable[_Item] = [topic, *(m for m, _ in sorted(past, key=lambda mp: -len(own & mp[1])))]
    # what the story's headlines say, less the function words every sentence has (什么, 一个) and the night's
    titled = own.union(*(grams for _, grams in past)) - ZH_STOP_BIGRAMS
    people = people_in(topic.title)
    told = [m for m in members if not _quotes_another(m, known)]  # the matched title names no speaker of its own
    heard = {id(m) for m in told}
    for item in ordered:
        if item is not topic and id(item) not in heard:
            continue
        sentences = _own_sentences(item, repeated)
        if item is not topic:  # another member's sentence keeps everyone the matched title names, or none
            sentences = [s for s in sentences if _keeps(people, item.title + s)]
        naming = [bool(_past(s, occasion) & titled) for s in sentences]
        # a summary naming the story somewhere is about it throughout, but where a sentence says only the night
        on_story = any(naming)
        for sentence, names in zip(sentences, naming, strict=True):
            if len(set(han_bigrams(sentence)) - known) < MIN_NEW_TERMS:
                continue
            if names or (on_story and not any(w in sentence for w in occasion)):
                return sentence
    return _best_title(topic, told, known) or _best_title(topic, akin, known)


def _quotes_another(item: _Item, known: set[str]) -> bool:
    """Whether `item`'s headline opens with a speaker (某主持人：…) the matched title (`known`: its bigrams) does not
    name: what someone said of the story's subject is a moment of their own, not what the matched item is."""
    speaker = speaker_of(item.title)
    return bool(speaker) and not speaker & known


def _keeps(people: Collection[str], text: str) -> bool:
    """Whether `text` names all of `people` (the matched title's) or none of them, each by a bigram of the name:
    the tagger may cut a name with the next word's first character (李大伟春 of 李大伟春晚). A story grown from one
    person's name holds each of their moments of the night, and a text keeping one of a duo the headline names
    and dropping the other (the film one of them acted in alone, under the duo's sketch) tells the moment of the
    one it keeps. A text naming none of them tells the story in other words (the group's name, what happened)."""
    grams = set(han_bigrams(text))
    named = sum(bool(grams & set(han_bigrams(person))) for person in people)
    return named in (0, len(people))


def _best_title(topic: _Item, others: Sequence[_Item], known: set[str]) -> str | None:
    """The title of `others` adding most terms `known` lacks, if it adds enough; a tie keeps their order."""
    scored = [(_new_terms(m.title, known), -len(m.title), m.title) for m in others
              if m is not topic and m.title != topic.title]
    best = max(scored, key=lambda c: c[:2], default=None)
    return best[2] if best is not None and best[0] >= MIN_NEW_TERMS else None
