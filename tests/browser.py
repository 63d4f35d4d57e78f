"""Debian's chromium, headless, driven by Playwright: one fresh profile per page, never a downloaded browser."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium")

#: skip where Debian's chromium is absent (.ci/run installs it)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")

# Without the background-networking flags chromium keeps dialling Google's hosts on a closed network.
_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run"]


@contextmanager
def chromium_page() -> Iterator[Any]:
    """A page in headless chromium with a new, empty user-data dir; closed and removed afterwards."""
    from playwright import sync_api  # a dev dependency: missing means a broken install, not a skip
    profile_dir = tempfile.mkdtemp(prefix="tl-chromium-")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(profile_dir, executable_path=CHROMIUM, headless=True,
                                                       args=_ARGS)
        try:
            yield browser.new_page()
        finally:
            browser.close()
            shutil.rmtree(profile_dir, ignore_errors=True)
