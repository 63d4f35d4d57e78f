"""The items a story index holds, and what is counted over them as they come and go.

Each held item keeps its event evidence (`linking.evidence`) and its vector; the counts over
the held set — in how many headlines and contexts a term appears, per list and in all, which
terms are frequent enough to be an occasion's word, how each list's summaries open — are kept
as items are held and dropped, so reading any of them costs what changed, not a pass over
every held item.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from agent.captions.gist import Openers
from agent.models import Topic
from agent.stories.linking import (
    MIN_HELD,
    OCCASION_LEAST,
    OCCASION_SHARE,
    OCCASION_TITLE_SHARE,
    Evidence,
    GroupingRules,
    Namer,
    Weights,
    evidence,
    is_occasion_on,
    is_template,
    opens_with,
)
from agent.stories.vectors import VectorRows

__all__ = ["ANY_FLOOR", "TITLE_FLOOR", "HeldItems"]

# a subject of the night is looked up only among as many held headlines as a rare term's candidates
SUBJECT_DF = GroupingRules().rare_df
# the fewest holders an occasion's word can have: `is_occasion` reads against at least MIN_HELD items,
# over headlines and contexts and over headlines alone (`is_occasion_on`)
ANY_FLOOR = max(OCCASION_LEAST, math.ceil(OCCASION_SHARE * MIN_HELD))
TITLE_FLOOR = max(OCCASION_LEAST, math.ceil(OCCASION_TITLE_SHARE * MIN_HELD))


@dataclass
class HeldItems:
    """Held topics by id, their evidence and vectors, and the term counts over them."""

    background: float = 0.0  # the embedder's cosine of unrelated texts (see ranker.CALIBRATION)
    namer: Namer | None = None  # names in a headline (`linking.Namer`); None: the headlines' terms only
    topics: dict[str, Topic] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    vectors: VectorRows | None = None
    by_source: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    # how the held summaries of each list open, for the caption's gist (captions/gist.py)
    openers: Openers = field(default_factory=Openers)
    title_df: Counter[str] = field(default_factory=Counter)
    any_df: Counter[str] = field(default_factory=Counter)
    # headline and context terms per list, to read a term's share of the lists that carry it (`is_occasion`)
    source_df: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    source_title_df: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))  # headlines alone
    # terms held often enough to be an occasion's word (`is_occasion` needs this many at least), kept
    # as counts cross it, so finding the occasions reads these few and not every held term
    frequent: set[str] = field(default_factory=set)
    postings: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # headline term -> items
    # a work's title in 《》 -> the items naming it (`linking._same_act`), and each word of such a title ->
    # the items naming that title, so an item whose headline says the title finds them
    acts: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    act_words: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    speaker_only: set[str] = field(default_factory=set)  # held headlines that are a speaker alone
    df_moved: set[str] = field(default_factory=set)  # headline terms held more or fewer times since last read
    touched: set[str] = field(default_factory=set)  # platforms whose list changed since last read
    # the occasion's words as of the `changes`-th change of the held set: an update reads them twice
    changes: int = 0
    _occasion_words: tuple[int, list[str]] = (-1, [])

    def __len__(self) -> int:
        return len(self.topics)

    def hold(self, topic: Topic, vector: np.ndarray | None) -> None:
        tid = topic.id
        self.changes += 1
        self.topics[tid] = topic
        self.touched.add(topic.source)
        self.by_source[topic.source].add(tid)
        ev = self.evidence[tid] = evidence(topic, self.namer)
        if ev.terms.speaker and not ev.terms.terms:
            self.speaker_only.add(tid)
        self.df_moved.update(ev.title_terms)
        title_df = self.source_title_df[topic.source]
        for term in ev.title_terms:
            self.title_df[term] += 1
            title_df[term] += 1
            self.postings[term].add(tid)
        for act, words in ev.acts.items():
            self.acts[act].add(tid)
            for term in words:
                self.act_words[term].add(tid)
        self.openers.add(topic.source, topic.summary)
        source_df = self.source_df[topic.source]
        for term in ev.title_terms | ev.context:
            self.any_df[term] += 1
            source_df[term] += 1
            if self._reachable(term):
                self.frequent.add(term)
        if vector is not None:
            if self.vectors is None:
                self.vectors = VectorRows(background=self.background)
            self.vectors.add(tid, vector)

    def drop(self, tid: str) -> Topic:
        topic = self.topics.pop(tid)
        self.changes += 1
        self.touched.add(topic.source)
        self.by_source[topic.source].discard(tid)
        ev = self.evidence.pop(tid)
        self.speaker_only.discard(tid)
        self.df_moved.update(ev.title_terms)
        title_df = self.source_title_df[topic.source]
        for term in ev.title_terms:
            _less(self.title_df, term)
            _less(title_df, term)
            _unpost(self.postings, term, tid)
        for act, words in ev.acts.items():
            _unpost(self.acts, act, tid)
            for term in words:
                _unpost(self.act_words, term, tid)
        self.openers.remove(topic.source, topic.summary)
        source_df = self.source_df[topic.source]
        for term in ev.title_terms | ev.context:
            _less(self.any_df, term)
            _less(source_df, term)
            if not self._reachable(term):
                self.frequent.discard(term)
        if self.vectors is not None:
            self.vectors.drop(tid)
        return topic

    def move(self, tid: str, held: Topic, now: Topic) -> None:
        """The same headline held as the object passed; the same id on another platform (an ingested
        `ref`) moves its lists."""
        self.topics[tid] = now
        if held.source != now.source:
            self.changes += 1
            self.by_source[held.source].discard(tid)
            self.by_source[now.source].add(tid)
            self.touched.add(held.source)

    # -- reading the counts ------------------------------------------------------
    def lexical_candidates(self, tid: str, rules: GroupingRules) -> set[str]:
        """The items sharing one of `tid`'s rarer headline terms, rarest first, up to the rules' bound."""
        out: set[str] = set()
        df = self.title_df
        for term in sorted(self.evidence[tid].title_terms, key=lambda t: (df.get(t, 0), t)):
            if df.get(term, 0) > rules.rare_df or len(out) >= rules.max_candidates:
                break
            out |= self.postings.get(term, set())
        return out | self._act_candidates(tid, rules)

    def _act_candidates(self, tid: str, rules: GroupingRules) -> set[str]:
        """The items naming one of `tid`'s works (`linking._same_act`), the items whose headline has a word of
        one, and those naming a work whose words `tid`'s headline has: as above, only what at most
        `rare_df` items hold (a book every excerpt names proposes nothing), up to `max_candidates`."""
        ev, df, rare = self.evidence[tid], self.title_df, rules.rare_df
        found: list[set[str]] = []
        for act, words in ev.acts.items():
            found.append(self.acts.get(act, set()))
            found += [self.postings.get(t, set()) for t in words if df.get(t, 0) <= rare]
        found += [self.act_words.get(t, set()) for t in ev.title_terms if df.get(t, 0) <= rare]
        out: set[str] = set()
        for held in sorted((f for f in found if 0 < len(f) <= rare), key=len):
            if len(out) >= rules.max_candidates:
                break
            out |= held
        return out

    def _reachable(self, term: str) -> bool:
        """Held often enough, over headlines and contexts or over headlines alone, to be an occasion's word."""
        return self.any_df.get(term, 0) >= ANY_FLOOR or self.title_df.get(term, 0) >= TITLE_FLOOR

    def occasion(self, term: str) -> bool:
        # a reading whose count the term cannot reach is not read: most frequent terms are read by neither
        wide, titled = self.any_df.get(term, 0) >= ANY_FLOOR, self.title_df.get(term, 0) >= TITLE_FLOOR
        if not (wide or titled):
            return False
        return is_occasion_on(term, self._list_size, self.source_df if wide else {},
                              self.source_title_df if titled else {})

    def _list_size(self, source: str) -> int:
        return len(self.by_source[source])

    def template(self, source: str, term: str) -> bool:
        return is_template(self.source_df[source].get(term, 0), len(self.by_source[source]),
                           self.any_df.get(term, 0))

    def occasion_words(self) -> list[str]:
        """The held headline terms that are an occasion's word now, most carried first."""
        at, words = self._occasion_words
        if at != self.changes:
            df = self.title_df
            words = sorted((t for t in self.frequent if df.get(t, 0) and self.occasion(t)),
                           key=lambda t: (-df.get(t, 0), t))
            self._occasion_words = (self.changes, words)
        return list(words)

    def weights(self) -> Weights:
        """IDF over the items held now (`linking.Weights`)."""
        return Weights(len(self.topics), self.title_df.__getitem__, self.any_df.__getitem__,
                       self.occasion, self.template, under_occasion=bool(self.occasion_words()),
                       subject=self.subject)

    def subject(self, term: str) -> bool:
        """Whether a held headline opens with `term` past the occasion's words (`linking.Weights.subject`);
        only a term at most `SUBJECT_DF` headlines hold is looked up."""
        held = self.postings.get(term, ())
        if not 0 < len(held) <= SUBJECT_DF or self.occasion(term):
            return False
        return any(opens_with(self.evidence[i], {term}, self.occasion) for i in held)

    def title_terms(self, tid: str) -> frozenset[str]:
        ev = self.evidence.get(tid)
        return ev.title_terms if ev is not None else frozenset()


def _less(counts: Counter[str], term: str) -> None:
    counts[term] -= 1
    if counts[term] <= 0:
        del counts[term]


def _unpost(postings: dict[str, set[str]], key: str, tid: str) -> None:
    held = postings.get(key)
    if held is not None:
        held.discard(tid)
        if not held:
            del postings[key]
