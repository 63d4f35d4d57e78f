"""What the glasses tests need beyond the venv: Pillow and a CJK font for bitmaps, Brilliant Labs'
Halo emulator. Skipped where missing, failed under CI (`harness.required.in_ci`): `make test` and
`.ci/run` install them (the `glasses` extra, halo-emulator in `dev`, Debian's fonts-noto-cjk)."""

from __future__ import annotations

import importlib.util

import pytest

from agent.errors import ConfigError
from harness.required import in_ci

__all__ = ["missing", "need_bitmaps", "need_halo_emulator"]


def missing(what: str) -> None:
    if in_ci():
        pytest.fail(f"{what} is missing; `make test` installs it (see docs/glasses/)", pytrace=False)
    pytest.skip(f"{what} is missing")


def need_bitmaps() -> None:
    """Pillow and a system CJK font, found as the service finds them."""
    from agent.display.bitmaps import find_cjk_font

    if importlib.util.find_spec("PIL") is None:
        missing("Pillow (pip install -e '.[glasses]')")
    try:
        find_cjk_font()
    except ConfigError:
        missing("a CJK font (apt-get install fonts-noto-cjk)")


def need_halo_emulator() -> None:
    need_bitmaps()
    for module, package in (("halo_emulator", "halo-emulator"), ("brilliant_msg", "brilliant-sdk")):
        if importlib.util.find_spec(module) is None:
            missing(f"{package} (pip install -e '.[dev,glasses]')")
