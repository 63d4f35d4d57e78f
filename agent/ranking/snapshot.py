"""The topic index as one immutable snapshot: entries, vectors, BM25 postings and priors together.

A snapshot is built off the event loop (`build_snapshot`, usually in a worker thread) and
published with a single assignment, so a query reads either the old index or the new one,
never the matrix of one and the entries of the other.

Building from the `previous` snapshot costs the new work: rows of topics already held with
the same text keep their vectors, title terms and BM25 postings; only new texts are embedded
and tokenized, and topics no longer passed are dropped. A `cancel` event abandons a build
between embedding chunks (`StoppingError`), so a stopping service does not wait for it.
"""

from __future__ import annotations

import functools
import itertools
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import is_not
from types import MappingProxyType
from typing import Any

import numpy as np

from ..errors import ModelError, StoppingError
from ..models import Topic, detect_lang
from .background import Background, sample_vectors, topic_backgrounds
from .cache import EmbeddingCache
from .embedders import Embedder
from .lexical import BM25Index, tokenize
from .pacing import a_build, step_aside
from .prior import fair_heat, row_priors

__all__ = ["IndexSnapshot", "RankerEntry", "SnapshotDelta", "TopicPrior", "as_entry", "build_snapshot", "doc_text"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class TopicPrior:
    heat: float | None = None
    velocity: float | None = None  # heat change per hour; > 0 is rising
    is_new: bool = False


@dataclass(frozen=True, kw_only=True)
class RankerEntry:
    """A topic to index under `id` (defaults to `topic.id`), with optional prior info."""

    topic: Topic
    id: str = ""
    prior: TopicPrior = field(default_factory=TopicPrior)

    @property
    def key(self) -> str:
        return self.id or self.topic.id


def as_entry(item: Any) -> RankerEntry:
    if isinstance(item, RankerEntry):
        return item
    if isinstance(item, Topic):
        return RankerEntry(topic=item, prior=TopicPrior(heat=item.heat))
    topic = getattr(item, "topic", None)  # StoredTopic (agent.store.db) — duck-typed
    if isinstance(topic, Topic):
        return RankerEntry(
            topic=topic,
            prior=TopicPrior(
                heat=topic.heat,
                velocity=getattr(item, "velocity", None),
                is_new=bool(getattr(item, "is_new", False)),
            ),
        )
    raise TypeError(f"cannot rank {type(item).__name__}; pass Topic, StoredTopic or RankerEntry")


def doc_text(topic: Topic) -> str:
    """What a topic is matched on: its title, plus the start of its summary."""
    if topic.summary:
        return f"{topic.title}. {topic.summary[:200]}"
    return topic.title


def _frozen(a: np.ndarray, dtype: type = np.float32) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=dtype)
    a.setflags(write=False)
    return a


_serials = itertools.count(1)


@dataclass(frozen=True, eq=False)
class SnapshotDelta:
    """What a snapshot changed from the one it was built on (`base`, that snapshot's `serial`): the rows
    that do not hold the very entry `base` held in some row (new topics, new objects, new text), and
    the keys `base` held that this snapshot does not. A follower of `base` (the story index) holds
    this snapshot by applying these alone."""

    base: int
    rows: np.ndarray  # ascending
    gone: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class IndexSnapshot:
    """Everything one query reads, consistent by construction. Never mutated after building."""

    entries: tuple[RankerEntry, ...]
    pos: Mapping[str, int]
    matrix: np.ndarray  # (n, dim) unit passage vectors; (n, 0) without a model
    lexical: BM25Index
    prior: np.ndarray  # (n,) in [0, 1]
    tokens: tuple[frozenset[str], ...] = ()  # title terms, for MMR without a model
    dense_ok: bool = True  # False when the model failed while embedding the titles: rank lexically
    texts: tuple[str, ...] = ()  # what each row was indexed on (`doc_text`), to reuse rows next build
    model: str = ""  # the embedder whose vectors `matrix` holds ("" without one)
    heat: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n,) fair heat, read against each platform
    keys: tuple[str, ...] = ()  # each row's key, read once at build time
    # per query language, each topic's (mean, std) cosine to everyday talk (background.py); empty: not measured
    background: Background = field(default_factory=lambda: MappingProxyType({}))
    # (n,) whether each topic is written in Chinese (or Japanese): the gate's pair of languages
    cjk: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    # (n,) each row's velocity and newness as the prior reads them, lent to the next build with its row
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(0))
    is_new: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # platform -> its rows, ascending: the next build finds a changed list's rows without walking every row
    rows_of: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    # what each row was built from, as passed (a StoredTopic, say): passed again, it lends its row unread
    items: tuple[Any, ...] = ()
    serial: int = 0  # unique to each built snapshot (0: empty or made by hand), what a `SnapshotDelta` names
    delta: SnapshotDelta | None = None  # None: nothing to follow it by (no previous, or rows not lent)

    def __len__(self) -> int:
        return len(self.entries)

    @functools.cached_property
    def item_rows(self) -> Mapping[int, int]:
        """id() of each of `items` -> its row: the next build finds the rows passed again without a loop in
        Python (the snapshot holds `items`, so no other live object can have one of these ids). Made when
        a build asks for it: a caller that names the rows it passes again (`passed_again`) never does."""
        return MappingProxyType(dict(zip(map(id, self.items), range(len(self.items)), strict=True)))

    @property
    def ids(self) -> list[str]:
        if len(self.keys) == len(self.entries):
            return list(self.keys)
        return [e.key for e in self.entries]

    @classmethod
    def empty(cls, dim: int = 0) -> IndexSnapshot:
        return cls((), MappingProxyType({}), _frozen(np.zeros((0, dim))), BM25Index([]), _frozen(np.zeros(0)))


def _embed_passages(embedder: Embedder, cache: EmbeddingCache | None, texts: list[str],
                    cancel: threading.Event | None = None) -> np.ndarray:
    if cache is not None:
        mat, found = cache.get_many(embedder.name, texts, embedder.dim)
    else:
        mat, found = np.zeros((len(texts), embedder.dim), dtype=np.float32), np.zeros(len(texts), dtype=bool)
    missing = [i for i in range(len(texts)) if not found[i]]
    if missing:
        log.info("embedding %d topic texts with %s (%d cached)", len(missing), embedder.name,
                 len(texts) - len(missing))
    for start in range(0, len(missing), 128):  # a cancel waits for one chunk at most (~2 s on two cores)
        _check(cancel)
        chunk = missing[start : start + 128]
        vecs = embedder.encode([texts[i] for i in chunk], role="passage")
        mat[chunk] = vecs
        if cache is not None:  # each chunk is kept: an abandoned build does not lose what it embedded
            cache.put_many(embedder.name, [texts[i] for i in chunk], vecs)
    return mat


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise StoppingError("index rebuild abandoned: the service is stopping")


def _key(item: Any) -> str:
    if type(item) is Topic:  # the common case first: `isinstance` on a model class is slow
        return item.id
    if isinstance(item, RankerEntry):
        return item.key
    topic = getattr(item, "topic", None)
    return topic.id if isinstance(topic, Topic) else as_entry(item).key


@a_build
def build_snapshot(topics: Iterable[Any], *, embedder: Embedder | None, cache: EmbeddingCache | None = None,
                   vectors: np.ndarray | None = None, previous: IndexSnapshot | None = None,
                   cancel: threading.Event | None = None, background: bool = False,
                   passed_again: np.ndarray | None = None) -> IndexSnapshot:
    """Index `topics` (Topic, StoredTopic or RankerEntry). `vectors` skips the model: precomputed
    passage embeddings, row-aligned with `topics`. `previous` lends its rows to topics it holds
    with the same text. `background` measures each topic against everyday talk (background.py).
    `passed_again`, when the caller knows it: for each of `topics`, the row of `previous` that was
    built from that very object (-1: none); checked, and found by looking each one up when wrong.
    Blocking: call it in a worker thread.

    Four steps: which rows `previous` lends (`_lend_rows`), the vectors or terms (`_dense`), each
    row's language, prior parts, fair heat and platform (`_row_facts`), and what changed (`_delta`)."""
    items = list(topics)
    if previous is not None and len(previous.texts) != len(previous):
        previous = None  # built without texts: nothing to match rows on
    rows = _lend_rows(items, previous, passed_again)
    entries = rows.entries
    reuse = np.asarray(rows.reuse, dtype=np.int64)
    same = np.zeros(len(items), dtype=bool)
    same[rows.same] = True
    _check(cancel)
    mat, tokens, bg, dense_ok = _dense(embedder, cache, vectors, previous, reuse, entries, rows.texts, cancel,
                                       background)
    _check(cancel)
    lexical = previous.lexical.updated(reuse=reuse, docs=rows.new_docs) if previous is not None \
        else BM25Index(rows.texts)
    # rows holding the very entry `previous` held lend their language, prior parts and platform:
    # only the other rows are read, so a cycle of 50 changes at 100k held reads 50 topics, not 100k
    lend = previous is not None and _per_row(previous)
    if not lend:
        same[:] = False
    facts = _row_facts(entries, previous if lend else None, reuse, same, rows.same_lang, rows.touched)
    pos_map = dict(zip(rows.keys, range(len(items)), strict=True))
    delta = _delta(previous, reuse, same, pos_map) if lend else None
    facts.cjk.setflags(write=False)
    return IndexSnapshot(entries, MappingProxyType(pos_map), _frozen(mat), lexical,
                         _frozen(row_priors(facts.heat, facts.velocity, facts.is_new)), tokens,
                         dense_ok, tuple(rows.texts), embedder.name if embedder is not None else "",
                         _frozen(facts.heat), tuple(rows.keys), bg, facts.cjk,
                         _frozen(facts.velocity, np.float64), _frozen(facts.is_new, np.float64),
                         MappingProxyType(facts.rows_of), tuple(items), next(_serials), delta)


@dataclass
class _Rows:
    """Each topic's row: its key, the row of `previous` it borrows (-1: none), its entry and text."""

    keys: list[str]
    reuse: list[int]
    same: list[int]  # the very entry of the previous snapshot: its heat is known too
    same_lang: list[int]  # other rows whose language the previous snapshot read
    entries: tuple[RankerEntry, ...]
    texts: list[str]
    new_docs: list[str]  # the texts the lexical index has not seen
    touched: set[str]  # platforms whose list changed: their fair heat is computed again


def _lend_rows(items: list[Any], previous: IndexSnapshot | None, passed_again: np.ndarray | None) -> _Rows:
    """Which rows of `previous` each topic borrows: the very object, or the same text."""
    n = len(items)
    if previous is None:
        entry_list = [as_entry(item) for item in items]
        texts = [doc_text(e.topic) for e in entry_list]
        return _Rows([_key(item) for item in items], [-1] * n, [], [], tuple(entry_list), texts, texts, set())
    matched = _match(items, previous, passed_again)
    if matched is not None:  # most rows passed again as the very objects: only the others are read
        keys, reuse_list, same_rows, same_lang, entry_list, texts, new_docs, touched = matched
        return _Rows(keys, reuse_list, same_rows, same_lang, tuple(entry_list), texts, new_docs, touched)
    keys = [_key(item) for item in items]
    reuse_list, same_rows, same_lang = [-1] * n, [], []
    entry_list, texts, new_docs, touched = [], [], [], set()
    prev_get = dict(previous.pos).get  # a plain dict answers faster than the read-only view
    prev_texts, prev_entries = previous.texts, previous.entries
    prev_items = previous.items if len(previous.items) == len(previous) else None
    lent = bytearray(len(previous))
    for i, (item, key) in enumerate(zip(items, keys, strict=True)):
        if not i & 255:
            step_aside()
        j = prev_get(key)
        if j is not None and not lent[j]:  # a row is lent once
            old = prev_entries[j]
            # the same object (frozen, so the same facts): nothing to read again
            if old is item or old.topic is item or (prev_items is not None and prev_items[j] is item):
                lent[j] = 1
                reuse_list[i] = j
                same_rows.append(i)
                entry_list.append(old)
                texts.append(prev_texts[j])
                continue
            entry = as_entry(item)
            text = doc_text(entry.topic)
            if prev_texts[j] == text:
                lent[j] = 1
                reuse_list[i] = j
                if old.topic.title == entry.topic.title and old.topic.lang == entry.topic.lang:
                    same_lang.append(i)  # a new object for the same headline (a store's row): no scan
            else:
                new_docs.append(text)
        else:
            entry = as_entry(item)
            text = doc_text(entry.topic)
            new_docs.append(text)
        touched.add(entry.topic.source)
        entry_list.append(entry)
        texts.append(text)
    touched.update(prev_entries[j].topic.source for j in np.flatnonzero(~np.frombuffer(lent, dtype=bool)).tolist())
    return _Rows(keys, reuse_list, same_rows, same_lang, tuple(entry_list), texts, new_docs, touched)


def _dense(embedder: Embedder | None, cache: EmbeddingCache | None, vectors: np.ndarray | None,
           previous: IndexSnapshot | None, reuse: np.ndarray, entries: tuple[RankerEntry, ...], texts: list[str],
           cancel: threading.Event | None, background: bool,
           ) -> tuple[np.ndarray, tuple[frozenset[str], ...], Background, bool]:
    """The passage vectors (lent rows copied, the others embedded) and their closeness to small talk;
    without a model, each row's lexical terms instead. Also says whether the vectors are usable."""
    bg: Background = MappingProxyType({})
    held = reuse >= 0
    if embedder is None:
        old_tokens = previous.tokens if previous is not None and len(previous.tokens) == len(previous) else None
        if old_tokens is None:
            return np.zeros((len(entries), 0), dtype=np.float32), tuple(_terms(t) for t in texts), bg, True
        terms = _gather(old_tokens, reuse[held], held)  # the lent rows' terms in one gather, the others tokenized
        for i in np.flatnonzero(~held).tolist():
            terms[i] = _terms(texts[i])
        return np.zeros((len(entries), 0), dtype=np.float32), tuple(terms), bg, True
    dense_ok = True
    reused_rows = np.zeros(0, dtype=np.int64)  # rows whose vectors `previous` lent
    if vectors is not None:
        mat = np.asarray(vectors, dtype=np.float32)
        if mat.shape != (len(entries), embedder.dim):
            raise ValueError(f"vectors shape {mat.shape} != ({len(entries)}, {embedder.dim})")
    else:
        mat = np.zeros((len(entries), embedder.dim), dtype=np.float32)
        fresh = np.flatnonzero(~held)
        if previous is not None and previous.model == embedder.name and previous.dense_ok:
            mat[held] = previous.matrix[reuse[held]]
        else:
            fresh = np.arange(len(entries))
        reused_rows = np.setdiff1d(np.arange(len(entries)), fresh)
        try:
            mat[fresh] = _embed_passages(embedder, cache, [texts[i] for i in fresh], cancel)
        except ModelError as exc:  # no passage vectors: rank lexically until the next index works
            log.warning("embedding topic titles failed, this index ranks lexically: %s", exc)
            mat = np.zeros((len(entries), embedder.dim), dtype=np.float32)
            dense_ok = False
    if background and dense_ok:
        bg = _backgrounds(embedder, cache, mat, previous, reuse, reused_rows)
    return mat, (), bg, dense_ok


@dataclass
class _Facts:
    cjk: np.ndarray
    velocity: np.ndarray
    is_new: np.ndarray
    heat: np.ndarray
    rows_of: dict[str, np.ndarray]


def _row_facts(entries: tuple[RankerEntry, ...], lender: IndexSnapshot | None, reuse: np.ndarray, same: np.ndarray,
               same_lang: list[int], touched: set[str]) -> _Facts:
    """Each row's script, velocity, newness, fair heat and the rows of each platform; `lender` (the
    previous snapshot, when its rows may lend) gives them for the `same` rows, which are not read."""
    n = len(entries)
    heat = np.zeros(n, dtype=np.float64)
    cjk = np.zeros(n, dtype=bool)
    velocity = np.zeros(n, dtype=np.float64)
    is_new = np.zeros(n, dtype=np.float64)
    unread_of: dict[str, list[int]] = {}
    lang_known = np.zeros(n, dtype=bool)
    if lender is not None:
        lang_known[same_lang] = True
        lang_rows = np.flatnonzero(lang_known)
        cjk[lang_rows] = lender.cjk[reuse[lang_rows]]
    for i in np.flatnonzero(~same).tolist():
        if not i & 255:
            step_aside()
        entry = entries[i]
        if not lang_known[i]:
            cjk[i] = _cjk(entry.topic)
        velocity[i] = entry.prior.velocity or 0.0
        is_new[i] = entry.prior.is_new
        unread_of.setdefault(entry.topic.source, []).append(i)
    rows_of: dict[str, np.ndarray] = {}
    if lender is not None:
        lent_rows = np.flatnonzero(same)
        from_rows = reuse[lent_rows]
        cjk[lent_rows] = lender.cjk[from_rows]
        velocity[lent_rows] = lender.velocity[from_rows]
        is_new[lent_rows] = lender.is_new[from_rows]
        heat[lent_rows] = lender.heat[from_rows]
        moved = np.full(len(lender), -1, dtype=np.int64)  # previous row -> its row here, for lent rows
        moved[from_rows] = lent_rows
        for source, old_rows in lender.rows_of.items():
            rows = moved[old_rows]
            rows_of[source] = np.sort(rows[rows >= 0])  # a caller may pass the topics in another order
    for source, rows_list in unread_of.items():
        rows = np.asarray(rows_list, dtype=np.int64)
        kept = rows_of.get(source)
        rows_of[source] = rows if kept is None or not len(kept) else np.sort(np.concatenate([kept, rows]))
    rows_of = {source: _frozen(rows, np.int64) for source, rows in rows_of.items() if len(rows)}
    if lender is not None:
        # fair heat reads a platform's list as a whole: again for every platform whose list changed
        redo = np.sort(np.concatenate([rows_of[s] for s in touched if s in rows_of] or [np.zeros(0, np.int64)]))
    else:
        redo = np.arange(n)
    if len(redo):
        heat[redo] = fair_heat([entries[i] for i in redo.tolist()])
    return _Facts(cjk, velocity, is_new, heat, rows_of)


def _delta(previous: IndexSnapshot | None, reuse: np.ndarray, same: np.ndarray,
           pos_map: dict[str, int]) -> SnapshotDelta | None:
    """What changed since `previous`: the rows not lent and the keys gone; None when a key repeats
    (a follower could not find every row by its key)."""
    if previous is None or len(pos_map) != len(same):
        return None
    kept = np.zeros(len(previous), dtype=bool)
    kept[reuse[same]] = True
    prev_keys = previous.keys if len(previous.keys) == len(previous) else previous.ids
    gone = tuple(k for k in map(prev_keys.__getitem__, np.flatnonzero(~kept).tolist()) if k not in pos_map)
    return SnapshotDelta(previous.serial, _frozen(np.flatnonzero(~same), np.int64), gone)


_Matched = tuple[list[str], list[int], list[int], list[int], list[RankerEntry], list[str], list[str], set[str]]


def _gather(values: Sequence[Any], rows: np.ndarray, where: np.ndarray) -> list[Any]:
    """A list as long as `where` whose `where` places hold `values[rows]` (None elsewhere), in C.

    The usual case is a cycle's few changes: the kept rows in their old order, so one pass keeps
    them and the few other places are inserted; otherwise an object array gathers them."""
    rest = np.flatnonzero(~where).tolist()
    if len(rest) <= 1024 and (len(rows) < 2 or bool(np.all(rows[1:] > rows[:-1]))):
        taken = np.zeros(len(values), dtype=bool)
        taken[rows] = True
        out = list(compress(values, taken.tolist()))
        for i in rest:  # ascending: each lands where it belongs once the ones before it are in
            out.insert(i, None)
        return out
    src = np.empty(len(values), dtype=object)
    src[:] = values
    gathered = np.empty(len(where), dtype=object)
    gathered[where] = src[rows]
    return gathered.tolist()


def _match(items: list[Any], previous: IndexSnapshot, passed_again: np.ndarray | None = None) -> _Matched | None:
    """What the reuse loop of `build_snapshot` gives, found in bulk: the items passed again as the very
    objects `previous` was built from take their rows (key, entry, text) without being read, and only
    the other items go through the loop's own matching by key and text. None (use the loop) when
    `previous` did not keep its items, or an item is passed twice, or a new item's key is one a row
    passed again holds (the loop's order of lending then decides; it is the rare case)."""
    if not len(previous) == len(previous.items) == len(previous.keys):
        return None
    n = len(items)
    found = _named(items, previous, passed_again)
    if found is None:
        if len(previous.item_rows) != len(previous):  # an object held twice: the loop lends its row once
            return None
        found = np.fromiter(map(previous.item_rows.get, map(id, items), repeat(-1)), dtype=np.int64, count=n)
    again = found >= 0
    rows = found[again]
    lent = np.zeros(len(previous), dtype=bool)
    lent[rows] = True
    if int(lent.sum()) != len(rows):  # one object passed twice: the loop lends its row once
        return None
    rest = np.flatnonzero(~again).tolist()
    keys = _gather(previous.keys, rows, again)
    entries = _gather(previous.entries, rows, again)
    texts = _gather(previous.texts, rows, again)
    reuse = found.copy()
    prev_get = previous.pos.get
    prev_texts, prev_entries = previous.texts, previous.entries
    same_lang: list[int] = []
    new_docs: list[str] = []
    touched: set[str] = set()
    for i in rest:
        step_aside()
        item = items[i]
        key = keys[i] = _key(item)
        entry = entries[i] = as_entry(item)
        text = texts[i] = doc_text(entry.topic)
        j = prev_get(key)
        reuse[i] = -1
        if j is not None and lent[j]:  # a row passed again holds this key too: the loop's order decides
            return None
        if j is not None and prev_texts[j] == text:
            lent[j] = True
            reuse[i] = j
            old = prev_entries[j]
            if old.topic.title == entry.topic.title and old.topic.lang == entry.topic.lang:
                same_lang.append(i)
        else:
            new_docs.append(text)
        touched.add(entry.topic.source)
    touched.update(prev_entries[j].topic.source for j in np.flatnonzero(~lent).tolist())
    return keys, reuse.tolist(), np.flatnonzero(again).tolist(), same_lang, entries, texts, new_docs, touched


def _named(items: list[Any], previous: IndexSnapshot, passed_again: np.ndarray | None) -> np.ndarray | None:
    """`passed_again` when it is right: each row it names of `previous` was built from that very item (a pass
    in C over the named ones, where looking each item up costs 15-30 ms at 100k). A row named twice is an
    object passed twice, which `_match` hands to the loop as it does when it looks the rows up."""
    if passed_again is None or len(passed_again) != len(items):
        return None
    found = np.asarray(passed_again, dtype=np.int64)
    again = found >= 0
    rows = found[again]
    if len(rows) and int(rows.max()) >= len(previous):
        return None
    named = map(previous.items.__getitem__, rows.tolist())
    if any(map(is_not, compress(items, again.tolist()), named)):
        return None
    return found.copy()


def _terms(text: str) -> frozenset[str]:
    step_aside()
    return frozenset(tokenize(text))


def _per_row(snapshot: IndexSnapshot) -> bool:
    """Whether `snapshot` holds every per-row fact a build lends (one built by this module does)."""
    n = len(snapshot)
    return all(len(a) == n for a in (snapshot.heat, snapshot.cjk, snapshot.velocity, snapshot.is_new)) and (
        sum(len(r) for r in snapshot.rows_of.values()) == n)


def _cjk(topic: Topic) -> bool:
    lang = topic.lang if topic.lang != "other" else detect_lang(topic.title)
    return lang in ("zh", "ja")


def _backgrounds(embedder: Embedder, cache: EmbeddingCache | None, mat: np.ndarray, previous: IndexSnapshot | None,
                 reuse: np.ndarray, reused_rows: np.ndarray) -> Background:
    """Each row's background: lent by `previous` for the rows whose vectors it lent, measured for the rest."""
    try:
        sample = sample_vectors(embedder, cache)
    except ModelError as exc:  # no sample vectors: the dense evidence falls back to per-query statistics
        log.warning("embedding the everyday-talk sample failed, topics are not calibrated: %s", exc)
        return MappingProxyType({})
    lend = previous is not None and len(reused_rows) and set(previous.background) == set(sample)
    todo = np.setdiff1d(np.arange(len(mat)), reused_rows) if lend else np.arange(len(mat))
    fresh = topic_backgrounds(mat[todo], sample)
    out = {}
    for lang, (mean_new, std_new) in fresh.items():
        mean = np.zeros(len(mat), dtype=np.float32)
        std = np.ones(len(mat), dtype=np.float32)
        mean[todo], std[todo] = mean_new, std_new
        if lend:
            assert previous is not None
            old_mean, old_std = previous.background[lang]
            mean[reused_rows], std[reused_rows] = old_mean[reuse[reused_rows]], old_std[reuse[reused_rows]]
        out[lang] = (_frozen(mean), _frozen(std))
    return MappingProxyType(out)
