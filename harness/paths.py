"""Where the checkout is, and the real data beside it (`../shared`: devsets/, upstream/, days/).

The harness reads the real data in place, never copies it, and only from a checkout: an installed
wheel has no `../shared`, so every reader skips, or fails under CI, with the path it looked at
(`required.need_shared`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT", "SHARED"]

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
