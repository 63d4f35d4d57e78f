"""Files the service reads at run time, shipped inside the package.

Workflows, the synthetic demo snapshot and the demo conversations are package
data loaded through `importlib.resources`, so an installed wheel run from any
folder behaves like the checkout.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["bundled", "conversations_dir", "snapshot_dir", "workflows_dir"]


def bundled(*parts: str) -> Path:
    """A folder shipped in the `agent` package, as a filesystem path (wheels install unzipped)."""
    ref = resources.files("agent").joinpath(*parts)
    path = Path(str(ref))
    if not path.is_dir():
        raise FileNotFoundError(f"package data {'/'.join(parts)!r} is missing from this installation ({path})")
    return path


def workflows_dir() -> Path:
    return bundled("workflows")


def snapshot_dir(configured: Path | None = None) -> Path:
    """The snapshot replayed offline: `configured`, else the package's synthetic demo snapshot (see its README)."""
    return configured if configured is not None else bundled("synthetic", "snapshot")


def conversations_dir() -> Path:
    return bundled("synthetic", "conversations")
