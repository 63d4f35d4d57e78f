"""Every script under scripts/ loads: its imports and module-level names resolve (a move that drops a
name a script reads fails here, not when someone next runs the script)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from harness.paths import ROOT

SCRIPTS = sorted((ROOT / "scripts").glob("*/*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[str(p.relative_to(ROOT / "scripts")) for p in SCRIPTS])
def test_the_script_loads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as `python scripts/<group>/<name>.py` runs it: its own folder first on the path (a script may
    # import its sibling), and registered as a module while it loads (dataclasses look it up)
    monkeypatch.syspath_prepend(str(path.parent))
    name = f"_script_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)  # `main()` runs only as __main__
