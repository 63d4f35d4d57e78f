"""Scoring: how strongly each indexed topic matches a query, on one calibrated scale.

    dense     = z-score of cos(query, topic) against this query's cosines to the whole index
                (shrunk toward the model's background for small indexes) / dense_z_scale
    lexical   = 1 - exp(-BM25 / lexical_tau)                      in [0, 1)
    relevance = w_dense * dense + w_lexical * lexical              what results are ordered by
    topic z   = z-score of cos(query, topic) against that topic's own cosines to a fixed sample
                of everyday talk in the query's language (background.py) / dense_z_scale
    evidence  = g_dense * topic z + (1 - g_dense) * lexical       what the relevance gate reads
                (topic z alone, for a topic in the other script, against its own bar, which
                 rises with the log of the number of other-script topics: `cross_bar`)

Ordering and the gate ask different questions. Which topic is this line about is a
comparison among topics for one query, and the per-query z-score answers it best (recall
on the relevance sets). Whether the line is about a trend at all must not depend on what
else the index holds, so the gate reads each topic's cosine in that topic's own units: a
short colloquial title near all everyday talk needs a much closer line than a long formal
one (docs/relevance.md). Profiles with calibration "query" (models never measured against
the sample) gate on the per-query z-score instead.

Every constant lives in one `CalibrationProfile` per embedding model, with one
`LanguageCalibration` per language. The shipped profiles come from
`scripts/eval/tune_relevance.py` run on the real development data (`profiles.json`, which
records the command that produced it, written by `harness/fitting.py` outside the package; the
service only reads it); nothing here is tuned by hand.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from ..models import zh_or_en
from .deixis import parts_at_the_table
from .lexical import query_terms
from .snapshot import IndexSnapshot
from .stopwords import ZH_SEAMS

__all__ = [
    "PROFILES",
    "CalibrationProfile",
    "Calibration",
    "Channel",
    "LanguageCalibration",
    "Scores",
    "dense_evidence",
    "expected_max_z",
    "first_by_meaning",
    "profile_for",
    "score",
    "stands_alone",
]

Channel = Literal["hybrid", "dense", "lexical"]
#: How dense evidence is normalised: per topic against everyday talk, or per query over the index.
Calibration = Literal["topic", "query"]
PROFILES_FILE = Path(__file__).with_name("profiles.json")


def expected_max_z(n: int) -> float:
    """E[max of n standard normals] (Gumbel approximation): how high pure noise reaches."""
    if n < 2:
        return 0.0
    a = math.sqrt(2.0 * math.log(n))
    if n < 8:
        return 0.65 * a
    return a - (math.log(math.log(n)) + math.log(4 * math.pi)) / (2.0 * a)


@dataclass(frozen=True, kw_only=True)
class LanguageCalibration:
    background: tuple[float, float] = (0.0, 0.06)  # cosine (mean, std) of a query against unrelated topics
    dense: float = 0.5
    lexical: float = 0.5
    lexical_tau: float = 8.0
    dense_z_scale: float = 4.0
    gate: float = 0.58  # relevance a match needs, at `gate_ref_n` topics, when the model answered
    gate_lexical: float = 0.58  # relevance a match needs when only BM25 answered (no model, or shed)
    gate_dense: float | None = None  # dense weight in the gate's evidence (None: the fusion weight `dense`)
    # the bar on the topic's own dense z alone for topics in the other script (a line in English about a
    # Chinese title shares no words with it, so the lexical part of the evidence is silent), at `cross_ref_n`
    # other-script topics; None: as same-script
    cross_gate: float | None = None
    # how much that bar rises per e-fold of the other-script topics: the best of N topics' z for a line
    # about none of them grows with N, so a constant bar fitted at one index size is wrong at another
    cross_growth: float = 0.0
    cross_ref_n: int = 1000
    # a title the line's meaning sets apart from every other story: its topic z leads the best of any other
    # story's by this much (`stands_alone`); None: no such pass. A line about one item told in its own words
    # ("a man of forty knelt for a red envelope" about a Chinese title) names nothing a bridge reads, and short
    # titles keep its z under the bar, but no other story comes near it; small talk that reaches the bar by
    # meaning meets several stories about as well. Chosen with each day left out (`scripts/eval/crosslingual.py`)
    # and on the relevance set's tune half (docs/relevance.md, "A title set apart by meaning")
    apart_margin: float | None = None
    # the least dense evidence (the line's own meaning, in the query's z units: `dense_evidence`) a title of the
    # line's script needs to pass the gate; None: any. A short table line that shares one word with a short title
    # ("表叔怎么还没到" and a flower named after someone's uncle, 表叔的月季上了热搜) passes on that word while its
    # meaning puts the title among the run of the night's titles; a line about the title means it too. Chinese:
    # chosen on a festival night's slower tables among the values that cost relevance.json's tune half no right
    # caption; English: the largest such value (docs/relevance.md, "A word shared, a meaning not")
    meaning_floor: float | None = None

    def gate_weights(self) -> tuple[float, float]:
        """(dense, lexical) weights of the evidence the hybrid gate reads."""
        if self.gate_dense is None:
            return self.dense, self.lexical
        return self.gate_dense, 1.0 - self.gate_dense

    def cross_bar(self, n_other: int) -> float | None:
        """The topic z a topic in the other script needs, among `n_other` such topics."""
        if self.cross_gate is None:
            return None
        return self.cross_gate + self.cross_growth * math.log(max(n_other, 1) / self.cross_ref_n)


@dataclass(frozen=True, kw_only=True)
class CalibrationProfile:
    """Every ranking constant for one embedding model (matched by name prefix)."""

    model: str
    langs: Mapping[str, LanguageCalibration] = field(
        default_factory=lambda: MappingProxyType({"zh": LanguageCalibration(), "en": LanguageCalibration()}))
    gate_ref_n: int = 170  # index size the gate thresholds were measured at
    shrink_n: int = 50  # index size at which per-query statistics and the background weigh equally
    prior: float = 0.15
    novelty_penalty: float = 10.0  # larger than any relevance: a shown topic sinks below all others
    mmr_lambda: float = 0.7
    calibration: Calibration = "query"
    made_by: str = ""  # the command that produced these numbers
    fitted_on: str = ""  # the data they were fitted on

    def lang(self, lang: str) -> LanguageCalibration:
        return self.langs.get(lang) or self.langs.get("en") or LanguageCalibration()

    def gate_threshold(self, lang: str, n: int, channel: Channel) -> float:
        """Relevance a result needs to pass the gate among `n` topics.

        Pure noise reaches a higher dense z-score among more topics (the expected maximum
        grows like sqrt(2 ln N)), so the bar moves with N around the measured size.
        """
        cal = self.lang(lang)
        if channel == "lexical":
            return cal.gate_lexical
        shift = (expected_max_z(n) - expected_max_z(self.gate_ref_n)) / cal.dense_z_scale
        return cal.gate + (1.0 if channel == "dense" else cal.gate_weights()[0]) * shift

    def background_floor(self) -> float:
        """The lowest background cosine: MMR rescales similarities so that ≈ unrelated."""
        return min(c.background[0] for c in self.langs.values()) if self.langs else 0.0

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CalibrationProfile:
        langs = {k: LanguageCalibration(**{**v, "background": tuple(v["background"])})
                 for k, v in data["langs"].items()}
        rest = {k: v for k, v in data.items() if k != "langs"}
        return cls(langs=MappingProxyType(langs), **rest)

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "langs": {k: {**v.__dict__, "background": list(v.background)}
                                                 for k, v in self.langs.items()},
                "gate_ref_n": self.gate_ref_n, "shrink_n": self.shrink_n, "prior": self.prior,
                "novelty_penalty": self.novelty_penalty, "mmr_lambda": self.mmr_lambda,
                "calibration": self.calibration, "made_by": self.made_by, "fitted_on": self.fitted_on}

    def with_lang(self, lang: str, **changes: Any) -> CalibrationProfile:
        langs = dict(self.langs)
        langs[lang] = replace(self.lang(lang), **changes)
        return replace(self, langs=MappingProxyType(langs))


def _builtin() -> dict[str, CalibrationProfile]:
    """Profiles for models the tuning script has not measured (test embedders, MiniLM)."""
    def two(zh: LanguageCalibration, en: LanguageCalibration) -> Mapping[str, LanguageCalibration]:
        return MappingProxyType({"zh": zh, "en": en})

    return {
        "st/all-MiniLM-L6-v2": CalibrationProfile(model="st/all-MiniLM-L6-v2", langs=two(
            LanguageCalibration(background=(0.484, 0.105)), LanguageCalibration(background=(0.057, 0.080)))),
        "hash-": CalibrationProfile(model="hash-", langs=two(
            LanguageCalibration(background=(0.0, 0.06)), LanguageCalibration(background=(0.0, 0.06)))),
        "": CalibrationProfile(model=""),  # no model: BM25 only
    }


def _load() -> dict[str, CalibrationProfile]:
    profiles = _builtin()
    if PROFILES_FILE.exists():
        for data in json.loads(PROFILES_FILE.read_text(encoding="utf-8")):
            p = CalibrationProfile.from_json(data)
            profiles[p.model] = p
    return profiles


#: Explicit registry: embedder name prefix -> its calibration profile.
PROFILES: dict[str, CalibrationProfile] = _load()


def profile_for(model_name: str | None) -> CalibrationProfile:
    """The profile of the longest registered prefix of `model_name` ("" = BM25 only)."""
    name = model_name or ""
    best = max((k for k in PROFILES if name.startswith(k)), key=len, default="")
    return PROFILES[best]


@dataclass(frozen=True)
class Scores:
    """Per-topic channel scores for one query, and how they were fused."""

    dense: np.ndarray
    lexical: np.ndarray
    relevance: np.ndarray
    lang: str
    channel: Channel  # what actually answered: "lexical" when there was no query vector
    evidence: np.ndarray | None = None  # what the gate reads, when it differs from `relevance`
    topic_z: np.ndarray | None = None  # the dense evidence per topic against everyday talk (the gate's units)

    @property
    def gate_evidence(self) -> np.ndarray:
        return self.relevance if self.evidence is None else self.evidence


def dense_evidence(cos: np.ndarray, snapshot: IndexSnapshot, profile: CalibrationProfile, lang: str, *,
                   per: Calibration = "query") -> np.ndarray:
    """Dense scores from cosines to every topic (the last axis is the snapshot's rows): z-scores per
    query over the index's titles of its script (`per="query"`, for ordering; `_own_script`), or per topic
    against everyday talk (`per="topic"`, for the gate; the per-query ones when the snapshot holds no
    backgrounds)."""
    cal = profile.lang(lang)
    bg = snapshot.background.get(lang) or snapshot.background.get("en")
    if per == "topic" and bg is not None:
        mean, std = bg
        return ((cos - mean) / (std * cal.dense_z_scale)).astype(np.float32)
    own = _own_script(cos, snapshot, lang)
    n = own.shape[-1]
    mu0, sd0 = cal.background
    a = n / (n + profile.shrink_n)
    mu = a * own.mean(axis=-1, keepdims=True) + (1 - a) * mu0
    sd = np.sqrt(a * own.var(axis=-1, keepdims=True) + (1 - a) * sd0 * sd0)
    return ((cos - mu) / (np.maximum(sd, 1e-4) * cal.dense_z_scale)).astype(np.float32)


def _own_script(cos: np.ndarray, snapshot: IndexSnapshot, lang: str) -> np.ndarray:
    """The cosines to the titles of the query's own script, when the index holds any: a query's cosines to
    the other script's titles are a second, lower mode, which widened the spread its z-scores are read in.
    The dense channel then weighed less beside the lexical one than the weights were fitted for
    (`dense`, `lexical`), and by how many titles of the other script the index held: on the live set's
    index of both languages a Chinese mention's best title fell from 1.27 to 0.72 z."""
    if len(snapshot.cjk) != cos.shape[-1]:
        return cos
    same = snapshot.cjk == (lang == "zh")
    return cos[..., same] if same.any() else cos


def _saturated(snapshot: IndexSnapshot, terms: Mapping[str, float], tau: float,
               named: AbstractSet[str] = frozenset()) -> np.ndarray:
    """The lexical channel: BM25 of `terms` against every topic, saturated to [0, 1) at scale `tau`."""
    return (1.0 - np.exp(-snapshot.lexical.scores(terms, named) / tau)).astype(np.float32)


def _with_cross_bar(evidence: np.ndarray, topic_z: np.ndarray, snapshot: IndexSnapshot,
                    profile: CalibrationProfile, lang: str) -> np.ndarray:
    """The pair's bar, moved onto the same-script bar (of this index size) so that one threshold serves
    every row: a cross row passes when its topic z reaches cross_bar(other-script count), or on the
    same-script evidence as before (a shared Latin name: "IBM", "SU7")."""
    cal, n = profile.lang(lang), len(snapshot)
    if cal.cross_gate is None or len(snapshot.cjk) != n:
        return evidence
    cross = snapshot.cjk != (lang == "zh")
    n_cross = int(np.count_nonzero(cross))
    bar = cal.cross_bar(n_cross)
    if not n_cross or bar is None:
        return evidence
    shift = profile.gate_threshold(lang, n, "hybrid") - bar
    return np.where(cross, np.maximum(topic_z + shift, evidence), evidence).astype(np.float32)


def _lexical(snapshot: IndexSnapshot, said: Mapping[str, float], bridged: Mapping[str, float] | None,
             tau: float, named: AbstractSet[str] = frozenset()) -> np.ndarray:
    """Saturated BM25 of the line's terms (`said`: `query_terms`), each bridged term at its weight if that is
    higher."""
    terms = dict(said)
    for term, weight in (bridged or {}).items():
        terms[term] = max(terms.get(term, 0.0), weight)
    return _saturated(snapshot, terms, tau, named) if terms else np.zeros(len(snapshot), dtype=np.float32)


def score(snapshot: IndexSnapshot, profile: CalibrationProfile, qvec: np.ndarray | None,
          parts: list[tuple[str, float]], *, channels: Channel = "hybrid", lang: str | None = None,
          bridged: Mapping[str, float] | None = None, bridge_bar: float = 1.0,
          agreeing: np.ndarray | None = None, named: AbstractSet[str] = frozenset(),
          first: np.ndarray | None = None) -> Scores:
    """Channel scores for every topic in `snapshot` (all arrays row-aligned with it).

    `parts` run oldest to newest; their language, unless `lang` is given, is the newest one's.
    `bridged`: query terms in the other language that the line names (`bridges.py`), weighted; a
    topic passes the gate on them alone when their lexical evidence, read with the Chinese lexical
    scale, reaches `bridge_bar` (fitted per language pair, `bridges.BRIDGE_BAR`), or when its title holds
    several things the line names (`agreeing`, a row mask: `ranker.agreeing_rows`) and the dense channel
    ranks it first: the rows of `first` when given (the line's own meaning, where `parts` are a window of
    several lines), else those `qvec` ranks first. `named`: the bridged terms that are a person's whole name,
    which a short title holding one matches on alone (`BM25Index.scores`)."""
    n = len(snapshot)
    # the newest utterance decides: a session that switches language is judged by the gate of
    # the line just said, not by whichever script the older lines of its window happen to hold
    lang = lang or (zh_or_en(parts[-1][0]) if parts else "en")
    cal = profile.lang(lang)
    dense = topic_z = np.zeros(n, dtype=np.float32)
    use_dense = qvec is not None and channels != "lexical" and n and snapshot.matrix.shape[1]
    if use_dense:
        cos = snapshot.matrix @ np.asarray(qvec, dtype=np.float32)
        dense = topic_z = dense_evidence(cos, snapshot, profile, lang)
        if profile.calibration == "topic":
            topic_z = dense_evidence(cos, snapshot, profile, lang, per="topic")
    # what the table points at as its own ("咱家那个…", "这锅…") is no lexical evidence (deixis.py)
    said = query_terms(parts_at_the_table(parts))
    lex = (_lexical(snapshot, said, bridged, cal.lexical_tau, named) if (channels != "dense" or not use_dense) and n
           else np.zeros(n, dtype=np.float32))
    bridged_lex = None
    if bridged and n and lang != "zh":
        # the Chinese terms an English line names (bridges.py), on the Chinese lexical scale; their
        # own bar (`bridge_bar`) is moved onto this language's threshold below
        bridged_lex = _saturated(snapshot, dict(bridged), profile.lang("zh").lexical_tau, named)
    if not use_dense:
        if bridged_lex is not None:  # rows the bridged terms reach only
            lex = np.where(bridged_lex > 0, np.maximum(lex, bridged_lex + (cal.gate_lexical - bridge_bar)), lex)
            lex = lex.astype(np.float32)
        return Scores(dense, lex, lex, lang, "lexical")
    if channels == "dense":
        return Scores(dense, lex, dense, lang, "dense")
    relevance = (cal.dense * dense + cal.lexical * lex).astype(np.float32)
    evidence = None
    if cal.gate_dense is not None or topic_z is not dense:
        g_dense, g_lex = cal.gate_weights()
        evidence = _with_cross_bar((g_dense * topic_z + g_lex * lex).astype(np.float32), topic_z, snapshot,
                                   profile, lang)
    if bridged_lex is not None:
        shift = profile.gate_threshold(lang, n, "hybrid") - bridge_bar
        held = relevance if evidence is None else evidence
        evidence = np.where(bridged_lex > 0, np.maximum(held, bridged_lex + shift), held).astype(np.float32)
        if agreeing is not None:
            # the title holding several things the line names, when the line's meaning ranks it first too,
            # passes as if its bridged terms had reached the bar (without a model nothing confirms the words)
            agreeing = agreeing & (bridged_lex > 0)
            agreeing &= first_by_meaning(dense, snapshot, agreeing) if first is None else first
            evidence = np.where(agreeing, np.maximum(evidence, _at_least(profile.gate_threshold(lang, n, "hybrid"))),
                                evidence).astype(np.float32)
    if lang == "zh" and len(snapshot.cjk) == n:
        words = _words_shared(snapshot, said, lex, named, _name_seams(parts, named))
        evidence = _sharing_a_word(relevance if evidence is None else evidence, words, snapshot.cjk)
    return Scores(dense, lex, relevance, lang, "hybrid", evidence, topic_z)


#: How many of the best titles `stands_alone` reads for the best of another story
RIVALS_READ = 16
#: The fewest words whose meaning may set a title apart: a recogniser's fragment ("dad do you know", "a long
#: time") has too little meaning for its best title's lead to say anything (with speech in two pieces, three of
#: the relevance set's 200 English small-talk lines went up on such a fragment; docs/relevance.md)
APART_WORDS = 5
_WORD = re.compile(r"[^\W_]+")


def stands_alone(scores: Scores, snapshot: IndexSnapshot, profile: CalibrationProfile,
                 related: Callable[[set[str]], set[str]] | None = None, *, said: str = "") -> Scores:
    """`scores` with the title that the meaning of `said` sets apart passing the gate: its topic z leads that of
    every title of another story, in either script, by `apart_margin` (`related`: a topic's story-mates; the
    same title counts as one story too), when `said` has `APART_WORDS` words or more. Other stories are read
    among the `RIVALS_READ` best titles; when all of them are the same story's, the best one past them is no
    nearer."""
    cal = profile.lang(scores.lang)
    z, n = scores.topic_z, len(snapshot)
    if cal.apart_margin is None or z is None or scores.channel != "hybrid" or n < 2 \
            or len(_WORD.findall(said)) < APART_WORDS:
        return scores
    k = min(RIVALS_READ, n - 1)
    best = np.argpartition(-z, k)[: k + 1]
    best = best[np.argsort(-z[best], kind="stable")]
    top, ids = int(best[0]), snapshot.ids
    kin = related({ids[top]}) if related is not None else {ids[top]}
    title = snapshot.entries[top].topic.title
    rival = next((float(z[j]) for j in best[1:] if ids[j] not in kin and snapshot.entries[j].topic.title != title),
                 float(z[best[-1]]))
    if float(z[top]) - rival < cal.apart_margin:
        return scores
    evidence = scores.gate_evidence.copy()
    evidence[top] = max(evidence[top], _at_least(profile.gate_threshold(scores.lang, n, "hybrid")))
    return replace(scores, evidence=evidence)


def meant(scores: Scores, snapshot: IndexSnapshot, profile: CalibrationProfile) -> Scores:
    """`scores` with each title of the line's own script that its meaning puts under `meaning_floor` kept off the
    gate: a word the line shares with such a title is a coincidence of words, not what the line is about. Read on
    the line just said (`Ranker._select`), never on a window, whose older lines of small talk dilute the meaning
    of a line about a meme. Titles of the other script have their own bar (`_with_cross_bar`)."""
    floor, n = profile.lang(scores.lang).meaning_floor, len(snapshot)
    if floor is None or scores.channel != "hybrid" or not n or len(snapshot.cjk) != n:
        return scores
    own = snapshot.cjk == (scores.lang == "zh")
    evidence = np.where(own & (scores.dense < floor), np.float32(-np.inf), scores.gate_evidence)
    return replace(scores, evidence=evidence.astype(np.float32))


def first_by_meaning(dense: np.ndarray, snapshot: IndexSnapshot, among: np.ndarray) -> np.ndarray:
    """The rows the line's meaning ranks first: the best one, and each row of `among` (the few rows asked about:
    those holding what the line names) with the same title (two platforms list one headline, one of them with
    a summary: the line's meaning is as near the one as the other, and which of them comes first is the
    summary's doing, not the line's)."""
    best = int(np.argmax(dense))
    first = dense >= dense[best]
    title = snapshot.entries[best].topic.title
    for row in np.flatnonzero(among):
        first[row] |= snapshot.entries[row].topic.title == title
    return first


def _at_least(value: float) -> np.float32:
    """The least float32 not under `value`: evidence set to a bar must not round below it."""
    f = np.float32(value)
    return f if float(f) >= value else np.nextafter(f, np.float32(np.inf))


def _words_shared(snapshot: IndexSnapshot, terms: Mapping[str, float], lex: np.ndarray,
                  named: AbstractSet[str] = frozenset(), seams: AbstractSet[str] = frozenset()) -> np.ndarray:
    """The lexical evidence of the line's terms that are words: a bigram across 的's seam (的春 of "今年的春联"
    and of "以前的春晚") is in both texts without either saying the other's word (`stopwords.ZH_SEAMS`), and so is
    one across a name's edge (`seams`). A person's name (`named`) is still a short title's whole match here, as in
    the line's full terms."""
    words = {t: w for t, w in terms.items() if not (set(t) & ZH_SEAMS) and t not in seams}
    if len(words) == len(terms):
        return lex
    return snapshot.lexical.scores(words, named) if words else np.zeros(len(snapshot), dtype=np.float32)


def _name_seams(parts: list[tuple[str, float]], named: AbstractSet[str]) -> set[str]:
    """The bigrams across the edge of a person's name where the lines say it (莲一 of "玉莲一开嗓"): half a name
    and the word after it, which a title holds without naming the person ("睡莲一开")."""
    out: set[str] = set()
    for text, _ in parts:
        for name in named:
            at = text.find(name)
            while at >= 0:
                end = at + len(name)
                out.update(t for t in (text[at - 1:at + 1] if at else "", text[end - 1:end + 1]) if len(t) == 2)
                at = text.find(name, at + 1)
    return out - set(named)


def _sharing_a_word(evidence: np.ndarray, lex: np.ndarray, cjk: np.ndarray) -> np.ndarray:
    """A Chinese line passes the gate on a Chinese title only when they share a term. On the labelled
    days' real lists no retold mention that passed shared none with its title (0 of 164), while half the
    small talk that passed did (4 of 8: a short slangy title near everything, "腿都麻了" → "赢麻了"); the
    dense channel still orders, and other-script titles keep their own bar (docs/relevance.md)."""
    return np.where(cjk & (lex <= 0), np.float32(-np.inf), evidence).astype(np.float32)
