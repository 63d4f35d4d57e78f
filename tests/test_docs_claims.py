"""Claims in the docs that the tree can check: dependency floors, and the benchmark tables `make bench` rewrites."""

from __future__ import annotations

import re
import tomllib

from tests.conftest import ROOT


def test_every_documented_floor_is_the_declared_one() -> None:
    declared = {}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # the optional extras' floors too (the `glasses` extra has rows of its own)
    for dep in project["dependencies"] + [d for extra in project.get("optional-dependencies", {}).values()
                                          for d in extra]:
        m = re.match(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*>=\s*([^,;\s]+)", dep)
        if m:
            declared[m.group(1).lower()] = m.group(2)
    documented = {m.group(1).lower(): m.group(2) for m in re.finditer(
        r"^\| ([A-Za-z0-9_.\-]+) \| ([0-9][0-9A-Za-z.]*)[^|]* \|", (ROOT / "docs" / "dependencies.md").read_text(
            encoding="utf-8"), re.M)}
    assert len(documented) >= 10
    wrong = {name: (floor, declared.get(name)) for name, floor in documented.items() if declared.get(name) != floor}
    assert not wrong, f"docs/dependencies.md floor vs pyproject.toml: {wrong}"


def test_every_regenerated_benchmark_table_has_its_block() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "tools" / "bench_tables.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
