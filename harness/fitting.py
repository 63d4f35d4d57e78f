"""What fits the shipped models and profiles, run by the scripts that fit them (never by the service).

`fit_link_model` fits the story link model (`stories.linking.LinkModel`; `scripts/eval/stories.py`
fits it leave-one-day-out and, with `--fit`, the shipped `LINK_MODELS`). `save_fitted` writes one
part of a model's calibration profile into `agent/ranking/profiles.json`, which the service only
reads (`scripts/eval/tune_relevance.py` owns the same-script part, `tune_crosslingual.py` the
cross-script one).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import numpy as np

from agent.ranking.scoring import PROFILES_FILE, CalibrationProfile
from agent.stories.linking import LinkModel

__all__ = ["CROSS_NOTE", "KEPT_KEYS", "fit_link_model", "save_fitted"]


def fit_link_model(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, iterations: int = 50,
                   strong: float = 0.7) -> LinkModel:
    """L2-regularised logistic regression by Newton's method (the bias is not penalised).

    `x` is (pairs × features, `stories.linking.pair_features`), `y` 1 where both items sit in one
    labelled story."""
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


#: The keys chosen outside `scripts/eval/tune_relevance.py`, which fits every other key and keeps these as they are:
#: `scripts/eval/tune_crosslingual.py` fits the cross-script bar, `scripts/eval/crosslingual.py` chooses
#: `apart_margin`, and `meaning_floor` is chosen on the festival replays (docs/relevance.md).
KEPT_KEYS = ("cross_gate", "cross_growth", "cross_ref_n", "apart_margin", "meaning_floor")
CROSS_NOTE = "; cross-script gates: "  # where the cross-script part of `fitted_on` starts


def save_fitted(fitted: CalibrationProfile, part: Literal["same", "cross"], path: Path = PROFILES_FILE) -> None:
    """Write `fitted`'s part of its model's profile into `path`, every key of the other part as the file had it.

    Each tuning script owns one part (`KEPT_KEYS` and the cross-script note, or the rest), so
    either can run without undoing the other; `made_by` names both commands."""
    rows = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    old = next((CalibrationProfile.from_json(r) for r in rows if r["model"] == fitted.model), None)
    merged = fitted
    if old is not None:
        same, cross = (fitted, old) if part == "same" else (old, fitted)
        langs = {lang: replace(cal, **{k: getattr(cross.lang(lang), k) for k in KEPT_KEYS})
                 if lang in cross.langs else cal for lang, cal in same.langs.items()}
        cmds = [c for c in same.made_by.split(" && ") if "tune_crosslingual" not in c][:1]
        cmds += [c for c in cross.made_by.split(" && ") if "tune_crosslingual" in c][:1]
        note = cross.fitted_on.partition(CROSS_NOTE)
        merged = replace(same, langs=MappingProxyType(langs), made_by=" && ".join(cmds),
                         fitted_on=same.fitted_on.partition(CROSS_NOTE)[0] + (note[1] + note[2] if note[1] else ""))
    kept = [r for r in rows if r["model"] != fitted.model]
    path.write_text(json.dumps(kept + [merged.to_json()], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
