"""docs/architecture.md names every module under agent/, so a reader finds each one's job there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENT = ROOT / "agent"


def _table_names(doc: str) -> set[str]:
    """Every path written in backticks in the first column of the module table, folder-qualified.

    A cell may name several modules of one folder (`display/hud.py`, `stdout.py`): a bare name
    belongs to the folder of the path before it in the same cell.
    """
    section = doc.split("## Modules, one job each", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        folder = ""
        for name in re.findall(r"`([^`]+)`", row.split("|")[1]):
            if "/" in name.rstrip("/"):
                folder = name.rstrip("/").rsplit("/", 1)[0] + "/" if name.endswith(".py") else ""
                names.add(name)
            elif name.endswith("/"):
                names.add(name)
            else:
                names.add(folder + name)
    return names


def _modules() -> list[str]:
    return sorted(str(p.relative_to(AGENT)) for p in AGENT.rglob("*.py") if p.name != "__init__.py")


def test_the_module_table_names_every_module() -> None:
    named = _table_names((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    missing = [m for m in _modules() if m not in named and m.rsplit("/", 1)[0] + "/" not in named]
    assert not missing, f"modules missing from docs/architecture.md's module table: {missing}"


def test_the_module_table_names_no_module_that_is_gone() -> None:
    named = _table_names((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    gone = [n for n in named if not (AGENT / n).exists()]
    assert not gone, f"docs/architecture.md names modules that do not exist: {gone}"
