"""Debian's chromium, headless, driven by Playwright: one fresh profile per page, never a downloaded browser."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium")

#: a page test: skipped where Debian's chromium is absent on a developer's machine, failed in CI (the
#: HUD escaping, offline /docs and digest page checks must not vanish into skips there)
needs_chromium = pytest.mark.usefixtures("chromium")


def require_chromium() -> str:
    """The browser's path; skip without it, or fail under CI=1 (.ci/run installs it or stops)."""
    from harness.servers import unavailable

    if CHROMIUM is None:
        unavailable("Debian's chromium is not installed")
    assert CHROMIUM is not None
    return CHROMIUM

# Without the background-networking flags chromium keeps dialling Google's hosts on a closed network.
_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run"]


@contextmanager
def chromium_page() -> Iterator[Any]:
    """A page in headless chromium with a new, empty user-data dir; closed and removed afterwards."""
    executable = require_chromium()
    from playwright import sync_api  # a dev dependency: missing means a broken install, not a skip
    profile_dir = tempfile.mkdtemp(prefix="tl-chromium-")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(profile_dir, executable_path=executable, headless=True,
                                                       args=_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()
            shutil.rmtree(profile_dir, ignore_errors=True)
