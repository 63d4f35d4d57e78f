"""The real data a test reads from `../shared`: skipped where a checkout lacks it, failed under CI.

A developer's checkout may have no `../shared` beside it, and its tests then skip with the path they
looked for. Under CI (`CI` set to anything but "", "0" or "false"; CI services set `CI=true`,
`.ci/run` sets `CI=1`) a missing file fails the test instead: a green CI run must mean the tests on
the real data ran, not that they vanished into skips. A test names what it reads in one of two ways:

    @needs_shared("devsets/relevance.json")        # a mark, checked before any fixture is set up
    need_shared("upstream/zhihu")                  # a call, inside a test or a fixture

Skips for other reasons (a recording that was never made, a test that reads the SQLite file under
`--database=postgresql`) stay skips; `.ci/run` lists every skip with its reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.paths import SHARED

__all__ = ["in_ci", "need_shared", "needs_shared"]


def in_ci() -> bool:
    """Whether this run is CI's, where a test must not skip for want of what CI provides."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def need_shared(*parts: str) -> Path:
    """`../shared` itself when every `parts` (paths under it) exists; else skip, or fail under CI."""
    missing = [part for part in parts if not (SHARED / part).exists()]
    if missing:
        where = SHARED / missing[0]
        if in_ci():
            pytest.fail(f"needs ../shared/{missing[0]}, not found at {where}: CI runs the tests on the real "
                        "data, so check ../shared out beside the repository", pytrace=False)
        pytest.skip(f"../shared/{missing[0]} is not here ({where})")
    return SHARED


def needs_shared(*parts: str) -> pytest.MarkDecorator:
    """The mark of a test (or, as `pytestmark`, a module) reading `parts` under `../shared`.

    tests/conftest.py checks it before the test's fixtures are set up, so a module-scoped fixture
    reading the files never meets them missing."""
    return pytest.mark.needs_shared(*parts)
