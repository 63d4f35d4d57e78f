#!/usr/bin/env python
"""Fit the gates of lines against topics in the other script (`cross_gate`, `cross_growth`).

A line in one language about a hot-list item in the other shares no words with its title, so
the lexical part of the same-language gate is silent and the line never clears it. The pair
gets its own bar on the topic's own dense z (scoring.py), in each utterance language:

* English about Chinese: English small talk against each labelled day's full Chinese lists and
  the relevance set's 891 Zhihu questions; probes `en-about-zh-synthetic.json` (written by us),
  judged leaving one day out (fitted on two days, read on the third).
* Chinese about English: Chinese small talk against the AG News titles of relevance.json;
  probes `zh-about-en-synthetic.json` (written by us), split by the parity of their AG News row
  (even = the tune half, odd = the report half, as `devsets.split`); fitted on the titles of one
  half, read on a mixed index of the other half's English titles and Chinese questions.

The best of N unrelated topics' z grows with N, so a bar fitted on one index size is wrong at
another. Two rules, both fitted on the tune half of the real small talk (chitchat.json) only:

* constant: the lowest bar letting at most `--budget` of those lines through on each tuning index;
* grows: bar(N) = a + b ln(N / cross_ref_n), N the index's topics in the other script. b is the
  slope of that lowest bar over random subsets of each tuning index (25 topics up to all of them,
  each index its own intercept); a is then the lowest that holds the budget on each whole index.

Each fold prints both rules' figures on what it was not fitted on: the probes right and wrong
and the report half of the small talk (against the left-out index, and against the relevance
set's mixed index of 2,091 topics at that rule's bar for its size).

    .venv/bin/python scripts/eval/tune_crosslingual.py --dry-run          # the tables
    .venv/bin/python scripts/eval/tune_crosslingual.py --lodo-out /tmp/x  # + each fold's without-<part>.json
    .venv/bin/python scripts/eval/tune_crosslingual.py                    # writes profiles.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent.models import Topic  # noqa: E402
from agent.ranking import EmbeddingCache, Ranked, Ranker, RankQuery, build_embedder  # noqa: E402
from agent.ranking.scoring import (  # noqa: E402
    PROFILES_FILE,
    CalibrationProfile,
    dense_evidence,
    profile_for,
)
from agent.settings import Settings  # noqa: E402
from harness import devsets
from harness.fitting import CROSS_NOTE, save_fitted

PROBE_DIR = devsets.ROOT / "fixtures" / "relevance" / "crosslingual-synthetic"
PROBES = {"en": PROBE_DIR / "en-about-zh-synthetic.json", "zh": PROBE_DIR / "zh-about-en-synthetic.json"}
REF_N = 1000  # the other-script topic count the fitted bar is quoted at (cross_ref_n)
RULES = ("none", "constant", "grows")  # none: the same-script gate alone
# What the cross bar of each utterance language may spend of the ≤ 0.03 small-talk target. The Chinese
# same-script gate already spends 0.025 of it on the relevance set's mixed index (docs/relevance.md), and
# Chinese small talk's best z over English titles has a heavy tail (its report half passes a 0.02 bar fitted
# on the tune half 0.05 of the time), so the Chinese pair gets none: the bar is just above every tune line.
BUDGET = (0.02, 0.0)
# Measured on the left-out parts (docs/relevance.md): the growing bar beats the constant one for English;
# for Chinese no bar beats the same-script gate alone, which already reads a Chinese line's dense evidence
# against English titles (0.4 of it) and captions as many probes with less small talk.
SHIPPED = ("grows", "none")


def cross_z(ranker: Ranker, lines: Sequence[str], lang: str) -> np.ndarray:
    """Per line (rows) and topic of the index in the other script (columns), the topic's own z."""
    snap = ranker.snapshot
    assert ranker.encoder is not None
    vecs = ranker.encoder.vectors_sync(list(lines))
    q = np.stack([vecs[t] for t in lines])
    z = dense_evidence(q @ snap.matrix.T, snap, ranker.profile, lang, per="topic")
    return z[:, snap.cjk != (lang == "zh")]


def bar_for(maxima: list[np.ndarray], budget: float) -> float:
    """The lowest bar (step 0.005) letting at most `budget` of the lines through on every index."""
    for bar in np.arange(-1.0, 3.0, 0.005):
        if all((m >= bar).mean() <= budget for m in maxima):
            return float(round(bar, 3))
    return 3.0


@dataclass(frozen=True)
class Bar:
    """A fitted cross bar: `at_ref` among `REF_N` other-script topics, rising `growth` per e-fold."""

    at_ref: float
    growth: float = 0.0

    def at(self, n: int) -> float:
        return self.at_ref + self.growth * math.log(max(n, 1) / REF_N)


def fit(zs: list[np.ndarray], budget: float, rule: str, seed: int = 24) -> Bar | None:
    """The bar of `rule` on the tuning indexes `zs` (small-talk lines × other-script topics each)."""
    if rule == "none":
        return None
    if rule == "constant":
        return Bar(bar_for([z.max(axis=1) for z in zs], budget))
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for z in zs:
        n = z.shape[1]
        sizes = [m for m in (25, 50, 100, 200, 400, 800) if m < n] + [n]
        x = np.log(sizes)
        y = np.array([np.median([bar_for([z[:, rng.choice(n, m, replace=False)].max(axis=1)], budget)
                                 for _ in range(1 if m == n else 20)]) for m in sizes])
        xs.append(x - x.mean())
        ys.append(y - y.mean())
    x, y = np.concatenate(xs), np.concatenate(ys)
    growth = round(float(x @ y / (x @ x)), 4)
    at_ref = max(bar_for([z.max(axis=1)], budget) - growth * math.log(z.shape[1] / REF_N) for z in zs)
    return Bar(round(at_ref + 0.0005, 3), growth)  # rounded up: the budget holds on each index


def with_bar(base: CalibrationProfile, lang: str, bar: Bar | None) -> CalibrationProfile:
    if bar is None:
        return base.with_lang(lang, cross_gate=None, cross_growth=0.0, cross_ref_n=REF_N)
    return base.with_lang(lang, cross_gate=bar.at_ref, cross_growth=bar.growth, cross_ref_n=REF_N)


def shown_bar(bar: Bar | None, n: int) -> str:
    return "–" if bar is None else f"{bar.at(n):.3f}"


@dataclass(frozen=True)
class Fold:
    """One left-out part: tuning indexes for the bar, and the index, probes and rule of rightness it is read on."""

    name: str
    slug: str  # in the file name of its left-out profile: without-<slug>.json
    tune: list[np.ndarray]
    ranker: Ranker
    probes: list[dict]
    right_of: dict[str, frozenset[str]]
    alone: Ranker | None = None  # the left-out index's other-script topics alone, where it holds both


def gated(ranker: Ranker, texts: Sequence[str]) -> list[list[Ranked]]:
    """Each text's top-1 past the gate with the heat prior on, as served; without MMR, as the fitted
    bars in profiles.json were read."""
    return ranker.rank_queries_sync([RankQuery(text=t, top_k=1, gate=True, prior=True, mmr=False) for t in texts])


def read(ranker: Ranker, profile: CalibrationProfile, fold: Fold, report: list[str]) -> tuple[int, int, float]:
    """(probes right, probes wrong, share of the small talk captioned) on `ranker` under `profile`."""
    kept, ranker.profile = ranker.profile, profile
    try:
        said = gated(ranker, [p["text"] for p in fold.probes])
        right = sum(bool(r) and r[0].id in fold.right_of[p["about"]]
                    for r, p in zip(said, fold.probes, strict=True))
        chatty = float(np.mean([bool(r) for r in gated(ranker, report)]))
    finally:
        ranker.profile = kept
    return right, sum(bool(r) for r in said) - right, chatty


def chatter(ranker: Ranker, profile: CalibrationProfile, lines: list[str]) -> float:
    kept, ranker.profile = ranker.profile, profile
    try:
        return float(np.mean([bool(r) for r in gated(ranker, lines)]))
    finally:
        ranker.profile = kept


def n_other(ranker: Ranker, lang: str) -> int:
    return int(np.count_nonzero(ranker.snapshot.cjk != (lang == "zh")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, nargs=2, metavar=("EN", "ZH"), default=BUDGET,
                    help="share of the tune half's small talk each language's cross bar may let through")
    ap.add_argument("--rule", nargs=2, choices=RULES, metavar=("EN", "ZH"), default=SHIPPED,
                    help="the rule each language's bar is written to profiles.json with")
    ap.add_argument("--langs", nargs="+", default=["en", "zh"], help="utterance languages to fit")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--lodo-out", type=Path, default=None)
    args = ap.parse_args()
    settings = Settings()
    emb = build_embedder(settings, None)
    cache = EmbeddingCache.for_settings(settings)
    base = profile_for(emb.name if emb else None)
    rel, chat = devsets.load()
    topics = {lang: [Topic(source=t["source"], item_id=t["id"], title=t["title"], lang=lang)
                     for t in rel[lang]["topics"]] for lang in ("zh", "en")}
    # the relevance set's index of both languages: a tuning index of the English bar whichever day is
    # left out (as for the same-language gate), and where both bars are read at the service's size
    mixed = Ranker(emb, topics["zh"] + topics["en"], cache=cache)
    shipped: dict[str, Bar | None] = {}
    rules = dict(zip(("en", "zh"), args.rule, strict=True))
    budgets = dict(zip(("en", "zh"), args.budget, strict=True))
    for lang in args.langs:
        budget = budgets[lang]
        tune, report = chat[lang][0::2], chat[lang][1::2]
        probes = json.loads(PROBES[lang].read_text(encoding="utf-8"))
        folds: list[Fold] = []
        if lang == "en":
            days = {name: devsets.load_day(name, settings) for name in devsets.DEV_DAYS}
            rankers = {name: Ranker(emb, day.topics, cache=cache) for name, day in days.items()}
            zs = {name: cross_z(r, tune, lang) for name, r in rankers.items()}
            always = cross_z(mixed, tune, lang)
            for out, day in days.items():
                folds.append(Fold(out, out, [z for name, z in zs.items() if name != out] + [always], rankers[out],
                                  probes["days"][out], day.right_of))
            everything = [*zs.values(), always]
        else:
            z_all = cross_z(mixed, tune, lang)
            rows = [int(t.item_id.split("-")[1]) for t in topics["en"]]
            for half, parity in (("report", 1), ("tune", 0)):  # read on `half`, fitted on the other
                fit_cols = [i for i, r in enumerate(rows) if r % 2 != parity]
                held = [t for t, r in zip(topics["en"], rows, strict=True) if r % 2 == parity]
                zh_held = [topics["zh"][i] for i in devsets.split(len(topics["zh"]), half)]
                right_of = {p["about"]: frozenset(f"news:{i}" for i in [p["about"], *p.get("also", [])])
                            for p in probes["halves"][half]}
                folds.append(Fold(f"AG News {half} half", f"agnews-{half}", [z_all[:, fit_cols]],
                                  Ranker(emb, zh_held + held, cache=cache), probes["halves"][half], right_of,
                                  Ranker(emb, held, cache=cache)))
            everything = [z_all]
        print(f"\n{lang} lines about topics in the other script (synthetic probes, {PROBES[lang].name}); "
              f"small talk: chitchat.json report half ({len(report)} lines), budget {budget}\n")
        print("| left out | rule | bar at the left-out index (other-script topics) | probes right | wrong "
              "| small talk captioned there | against its other-script topics alone "
              "| on the relevance set's mixed index (bar) |\n|---|---|---|---|---|---|---|---|")
        for fold in folds:
            for rule in RULES:
                bar = fit(fold.tune, budget, rule)
                profile = with_bar(base, lang, bar)
                right, wrong, chatty = read(fold.ranker, profile, fold, report)
                n = n_other(fold.ranker, lang)
                wide = chatter(mixed, profile, report)
                alone = f"{chatter(fold.alone, profile, report):.3f}" if fold.alone is not None else "(as there)"
                print(f"| {fold.name} | {rule} | {shown_bar(bar, n)} ({n}) | {right} of {len(fold.probes)} | {wrong} "
                      f"| {chatty:.3f} | {alone} | {wide:.3f} ({shown_bar(bar, n_other(mixed, lang))}) |", flush=True)
                if args.lodo_out is not None and rule == rules[lang]:
                    args.lodo_out.mkdir(parents=True, exist_ok=True)
                    path = args.lodo_out / f"without-{fold.slug}.json"
                    path.write_text(json.dumps(profile.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
        for rule in RULES[1:]:
            bar = fit(everything, budget, rule)
            assert bar is not None
            print(f"\nfitted on everything, {rule}: cross_gate {bar.at_ref:.3f} at {REF_N} other-script topics, "
                  f"cross_growth {bar.growth:.4f}")
        shipped[lang] = fit(everything, budget, rules[lang])
    if args.dry_run:
        return 0
    profile = base
    for lang, bar in shipped.items():
        profile = with_bar(profile, lang, bar)
    note = (f"{CROSS_NOTE}chitchat.json tune half on each index, English (rule {rules['en']}, budget "
            f"{budgets['en']}) against each labelled day's full lists and the relevance set's Zhihu questions, "
            f"Chinese (rule {rules['zh']}, budget {budgets['zh']}) against its AG News titles")
    cmd = " ".join(["python scripts/eval/tune_crosslingual.py", *sys.argv[1:]])
    save_fitted(CalibrationProfile.from_json({**profile.to_json(), "made_by": cmd, "fitted_on": note}), "cross")
    print(f"wrote {PROFILES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
