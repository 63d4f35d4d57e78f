"""BM25 over CJK character bigrams plus Latin words, with an inverted index.

Text is NFKC-normalised and lower-cased. A run of Han characters yields its
overlapping bigrams (a lone character yields itself), so 春晚机器人 matches
"春晚那个机器人" without a word segmenter. Latin/digit runs yield words (a tiny
stop list and plural stripping for English). Numbers said in words (what a speech recogniser
writes: "十九", "twenty twenty five") also yield their digits (numerals.py). Scoring touches only the postings
of the query's terms, each holding precomputed BM25 weights, so a query over
100k titles costs a few hundred microseconds of numpy.

A short Chinese title is not matched by one shared term. Hot-list phrases of two to nine
characters ("真姐夫", "当家里有了女主人", "初一饺子馅大赛") hold one to eight bigrams, and
BM25's length normalisation makes a single shared bigram of such a title score like a full
match of a long one: "反正有姐夫养着你" is not about "真姐夫", nor "饺子马上就出锅" about a
dumpling-filling contest. A Chinese document of at most `SHORT_DOC` terms needs
`SHORT_MIN_SHARED` of them (or all, if it has fewer) before it scores at all. Six characters
(five terms) was measured too: the same left-out-day figures, but the demo dinner's first
line then captioned the dumpling contest (docs/relevance.md).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet

import numpy as np

from ..text import HAN
from .numerals import spoken_numbers
from .pacing import paced, step_aside
from .stopwords import QUERY_EN, ZH_STOP_BIGRAMS

__all__ = ["BM25Index", "query_terms", "tokenize"]

_RUN = re.compile(rf"[{HAN}]+|[a-z0-9]+(?:'[a-z]+)?")

def _stem(w: str) -> str:
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def _latin(term: str) -> bool:
    return "a" <= term[0] <= "z" or term[0].isdigit()


def tokenize(text: str) -> list[str]:
    """Index/query terms of `text`: CJK bigrams (or a lone character) and English words."""
    norm = unicodedata.normalize("NFKC", text).lower()
    out: list[str] = []
    for m in _RUN.finditer(norm):
        run = m.group(0)
        if _latin(run):
            if run in QUERY_EN:
                continue
            out.append(_stem(run))
        elif len(run) == 1:
            out.append(run)
        else:
            out.extend(bg for bg in (run[i : i + 2] for i in range(len(run) - 1)) if bg not in ZH_STOP_BIGRAMS)
    out.extend(spoken_numbers(norm))  # "十九" and "nineteen" also match a title's "19"
    return out


def query_terms(parts: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Weighted query terms from `(text, weight)` parts (e.g. utterances with recency weights).

    Repeats within the query saturate (1 + log tf) so a word said five times is not 5x.
    """
    acc: dict[str, float] = {}
    for text, weight in parts:
        for term, tf in Counter(tokenize(text)).items():
            acc[term] = max(acc.get(term, 0.0), weight * (1.0 + math.log(tf)))
    return acc


#: Chinese documents of at most this many terms (a run of nine Han characters is eight bigrams) are short.
SHORT_DOC = 8
#: Distinct terms a query must share with a short document before it scores.
SHORT_MIN_SHARED = 2

Postings = dict[str, tuple[np.ndarray, np.ndarray]]  # term -> (slots int32, term frequencies float32)


class BM25Index:
    """An immutable BM25 index over `docs` (k1=1.2, b=0.75 by default).

    Documents live in *slots* that never move: postings list slots, and a `slot → row` map
    (-1 once a document is gone) says where a slot sits in this index. `updated` keeps the
    slots of the documents it keeps and appends slots for new ones, so the next index costs
    the new documents' terms, not a rebuild of everything held. BM25 weights depend on the
    live document count, lengths and frequencies, so they are computed at query time for the
    query's terms only (a few postings), not stored. Gone slots are compacted away once they
    outnumber the live ones, which keeps the amortised cost linear in the new work.
    """

    def __init__(self, docs: Sequence[str] = (), *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._post: Postings = {}
        self._slot_len = np.zeros(0, dtype=np.float32)
        self._slot_distinct = np.zeros(0, dtype=np.int32)  # distinct terms per slot
        self._need = np.zeros(0, dtype=np.int32)  # per row: shared terms a short document asks for (0: any)
        self._slot_counts: tuple[tuple[tuple[str, int], ...], ...] = ()  # per slot, for compaction
        self._row_slot = np.zeros(0, dtype=np.int32)
        self._slot_row = np.zeros(0, dtype=np.int32)
        self.n = 0
        self._avgdl = 1.0
        if docs:
            self._become(self.updated(list(docs)))

    def vocabulary(self) -> AbstractSet[str]:
        """Every term some document holds (or held, until compaction): read, never changed."""
        return self._post.keys()

    def _become(self, other: BM25Index) -> None:
        self.__dict__.update(other.__dict__)

    def __len__(self) -> int:
        return self.n

    @property
    def dead(self) -> int:
        """Slots of documents no longer held (reclaimed by compaction)."""
        return len(self._slot_len) - self.n

    def updated(self, rows: Sequence[int | str] | None = None, *, reuse: np.ndarray | None = None,
                docs: Sequence[str] = ()) -> BM25Index:
        """A new index whose row i is this index's row `rows[i]` (an int) or a new document (a str).

        Or, without building that list: `reuse[i]` is the kept row (-1 for a new one) and `docs`
        are the new rows' texts in order. This index is not changed: queries may go on reading it
        while the new one is built.
        """
        if reuse is None:
            rows = list(rows or ())
            reuse = np.fromiter((r if isinstance(r, int) else -1 for r in rows), dtype=np.int64, count=len(rows))
            docs = [r for r in rows if isinstance(r, str)]
        out = BM25Index(k1=self.k1, b=self.b)
        n_slots = len(self._slot_len)
        new_rows = np.flatnonzero(reuse < 0)
        if len(new_rows) != len(docs):
            raise ValueError(f"{len(new_rows)} new rows but {len(docs)} documents")
        row_slot = np.empty(len(reuse), dtype=np.int32)
        kept = reuse >= 0
        row_slot[kept] = self._row_slot[reuse[kept]]
        row_slot[new_rows] = n_slots + np.arange(len(new_rows), dtype=np.int32)
        fresh: dict[str, tuple[list[int], list[int]]] = {}
        counts: list[tuple[tuple[str, int], ...]] = []
        lengths: list[float] = []
        for k, text in enumerate(docs):
            step_aside()  # a build's loop: a query being answered goes first (pacing.py)
            slot = n_slots + k
            doc = tuple(Counter(tokenize(text)).items())
            counts.append(doc)
            lengths.append(float(sum(tf for _t, tf in doc)))
            for term, tf in doc:
                entry = fresh.get(term)
                if entry is None:
                    fresh[term] = ([slot], [tf])
                else:
                    entry[0].append(slot)
                    entry[1].append(tf)
        post = dict(self._post)  # the terms untouched by the new documents share their arrays
        for n, (term, (slots, tfs)) in enumerate(fresh.items()):
            if not n & 255:
                step_aside()
            new_slots = np.asarray(slots, dtype=np.int32)
            new_tfs = np.asarray(tfs, dtype=np.float32)
            old = post.get(term)
            post[term] = (new_slots, new_tfs) if old is None else (
                np.concatenate([old[0], new_slots]), np.concatenate([old[1], new_tfs]))
        out._post = post
        out._slot_len = np.concatenate([self._slot_len, np.asarray(lengths, dtype=np.float32)])
        # distinct terms of each new Chinese document (-1 for any other: the short-title rule is about Han phrases;
        # a five-word English headline is not "short")
        out._slot_distinct = np.concatenate([self._slot_distinct, np.asarray(
            [len(doc) if doc and all(not _latin(t) for t, _ in doc) else -1 for doc in paced(counts, 256)],
            dtype=np.int32)])
        out._slot_counts = self._slot_counts + tuple(counts)
        out._set_rows(row_slot)
        if out.dead > max(out.n, 1024):
            out = out._compacted()
        return out

    def _set_rows(self, row_slot: np.ndarray) -> None:
        self._row_slot = row_slot
        self._slot_row = np.full(len(self._slot_len), -1, dtype=np.int32)
        self._slot_row[row_slot] = np.arange(len(row_slot), dtype=np.int32)
        self.n = len(row_slot)
        short = self._slot_len[row_slot] <= SHORT_DOC
        distinct = self._slot_distinct[row_slot]
        self._need = np.where(short & (distinct > 0), np.minimum(SHORT_MIN_SHARED, distinct), 0).astype(np.int32)
        mean = float(self._slot_len[row_slot].mean()) if self.n else 0.0
        self._avgdl = mean if mean > 0 else 1.0

    def _compacted(self) -> BM25Index:
        """The same index with only live slots, renumbered by row (a full rebuild from term counts)."""
        out = BM25Index(k1=self.k1, b=self.b)
        acc: dict[str, tuple[list[int], list[int]]] = {}
        counts = tuple(self._slot_counts[int(s)] for s in self._row_slot)
        for row, doc in enumerate(counts):
            for term, tf in doc:
                entry = acc.get(term)
                if entry is None:
                    acc[term] = ([row], [tf])
                else:
                    entry[0].append(row)
                    entry[1].append(tf)
        out._post = {t: (np.asarray(s, dtype=np.int32), np.asarray(f, dtype=np.float32)) for t, (s, f) in acc.items()}
        out._slot_len = self._slot_len[self._row_slot].copy()
        out._slot_distinct = self._slot_distinct[self._row_slot].copy()
        out._slot_counts = counts
        out._set_rows(np.arange(self.n, dtype=np.int32))
        return out

    def rows(self, term: str) -> np.ndarray:
        """The rows of the documents holding `term`."""
        post = self._post.get(term)
        if post is None:
            return np.zeros(0, dtype=np.int32)
        rows = self._slot_row[post[0]]
        return rows[rows >= 0]

    def idf(self, term: str) -> float:
        """Inverse document frequency of `term` over the documents held (0 when none holds it)."""
        post = self._post.get(term)
        if post is None:
            return 0.0
        df = int(np.count_nonzero(self._slot_row[post[0]] >= 0))
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5)) if df else 0.0

    def scores(self, terms: Mapping[str, float] | str, whole: AbstractSet[str] = frozenset()) -> np.ndarray:
        """BM25 score of every document for weighted query `terms` (or a raw query string). A short
        document holding a term of `whole` (a person's name) needs no other to score."""
        if isinstance(terms, str):
            terms = query_terms([(terms, 1.0)])
        out = np.zeros(self.n, dtype=np.float32)
        shared = np.zeros(self.n, dtype=np.int32)  # distinct query terms each document holds
        k1, b = self.k1, self.b
        for term, qw in terms.items():
            post = self._post.get(term)
            if post is None:
                continue
            rows = self._slot_row[post[0]]
            live = rows >= 0
            df = int(np.count_nonzero(live))
            if not df:
                continue
            rows, tf = rows[live], post[1][live]
            idf = math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
            norm = k1 * (1.0 - b + b * self._slot_len[post[0][live]] / self._avgdl)
            out[rows] += np.float32(qw * idf) * (tf * (k1 + 1.0) / (tf + norm))  # a slot appears once per posting
            shared[rows] += SHORT_MIN_SHARED if term in whole else 1
        out[shared < self._need] = 0.0  # a short document needs enough of its terms (the module docstring says why)
        return out
