"""docs/stories.md names the thresholds the code uses: each figure below is read from its constant,
so changing one without the doc (or the doc without the code) fails here."""

from __future__ import annotations

import re

from agent.stories.linking import (
    COMMON_SHARE,
    LINK_MODELS,
    OCCASION_SHARE,
    TEMPLATE_SHARE,
    GroupingRules,
)
from harness.paths import ROOT

DOC = " ".join((ROOT / "docs" / "stories.md").read_text(encoding="utf-8").split())
RULES = GroupingRules()


def _g(value: float) -> str:
    return f"{value:g}"


def test_the_link_models_join_from_their_own_thresholds() -> None:
    assert f"joins from p ≥ {_g(LINK_MODELS['dense'].strong)}; `lexical`" in DOC
    assert f"without a model and joins from p ≥ {_g(LINK_MODELS['lexical'].strong)}" in DOC


def test_the_grouping_rules_as_written() -> None:
    assert f"very strong link (p ≥ {_g(RULES.same_list)})" in DOC
    assert f"links are kept (p ≥ {_g(RULES.kept)})" in DOC
    assert f"top-{RULES.neighbours} dense neighbours and up to {RULES.max_candidates} items" in DOC
    assert f"at least three and {RULES.name_share * 100:.0f} % of its" in DOC
    assert f"({RULES.name_purity * 100:.0f} % of the held headlines" in DOC
    assert f"(`name_share` {_g(RULES.name_share)})" in DOC


def test_the_shares_as_written() -> None:
    assert OCCASION_SHARE == 1 / 5 and "one in five (`OCCASION_SHARE`)" in DOC
    assert COMMON_SHARE == 1 / 40 and "headline of forty, `COMMON_SHARE`" in DOC
    assert f"more than {TEMPLATE_SHARE * 100:.0f} % of one list's items (`TEMPLATE_SHARE`)" in DOC


def test_the_fitting_precision_as_written() -> None:
    script = (ROOT / "scripts" / "eval" / "stories.py").read_text(encoding="utf-8")
    fit = float(re.search(r"^FIT_PRECISION = ([0-9.]+)", script, re.M).group(1))  # type: ignore[union-attr]
    assert f"keep **{_g(fit)}** precision" in DOC


def test_the_core_rule_as_written() -> None:
    assert f"at least a third (`core` {_g(RULES.core or 0)}) of the" in DOC
    assert f"linked at p ≥ {_g(RULES.support)} (`support`)" in DOC
