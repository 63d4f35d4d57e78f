"""Tests that read ../shared skip on a checkout without it and fail under CI, all through one check."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from harness.paths import ROOT
from harness.required import in_ci, need_shared, needs_shared
from tests.conftest import pytest_runtest_setup

MISSING = "devsets/no-such-set.json"


@pytest.mark.parametrize(("value", "ci"), [("", False), ("0", False), ("false", False), ("False", False),
                                           ("1", True), ("true", True), ("yes", True)])
def test_ci_is_any_value_but_empty_zero_or_false(monkeypatch, value: str, ci: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert in_ci() is ci


def test_missing_shared_data_skips_locally_and_fails_in_ci(monkeypatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=re.escape(f"../shared/{MISSING} is not here")):
        need_shared(MISSING)
    monkeypatch.setenv("CI", "true")
    # BaseException: a skip raised here must fail this test, not skip it
    with pytest.raises(BaseException, match=re.escape(f"needs ../shared/{MISSING}")) as info:
        need_shared(MISSING)
    assert info.type is pytest.fail.Exception


def test_the_mark_is_checked_before_the_fixtures(monkeypatch) -> None:
    item = SimpleNamespace(iter_markers=lambda name: [needs_shared(MISSING).mark] if name == "needs_shared" else [])
    monkeypatch.setenv("CI", "1")
    with pytest.raises(BaseException, match="CI runs the tests on the real data") as info:
        pytest_runtest_setup(item)  # type: ignore[arg-type]
    assert info.type is pytest.fail.Exception


# a skip whose condition or reason is about ../shared, written anywhere but harness/required.py
_OWN_SKIP = re.compile(r"skip(?:if)?\((?:[^()]|\([^()]*\))*(?:shared|SHARED|DEVSETS|UPSTREAM|devsets|upstream)", re.S)


def test_no_test_skips_on_shared_data_by_itself() -> None:
    """Every test that reads ../shared goes through `need_shared`/`needs_shared`, so none can skip in CI."""
    files = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "harness").rglob("*.py")]
    own = [f.relative_to(ROOT).as_posix() for f in files
           if f.name not in ("required.py", "test_required.py") and _OWN_SKIP.search(f.read_text(encoding="utf-8"))]
    assert own == []
