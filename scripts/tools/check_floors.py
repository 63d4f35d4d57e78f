"""Install every runtime dependency at its declared floor in a scratch venv and run the tests.

    python scripts/tools/check_floors.py [--keep] [--dir /tmp/trendlens-floors] [-- pytest args]

A floor in pyproject.toml is a promise that the package works with that version;
this checks the promise. The committed tree (git HEAD) is exported to the scratch
folder, so edits in progress do not change what is tested. torch is installed first,
at the version the Makefile pins, so that no other torch build is pulled in.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TORCH = "torch==2.13.0"  # as in the Makefile: the CPU build


def floors(pyproject: Path) -> list[str]:
    """`name==floor` for every runtime dependency with a `>=` bound (torch excepted)."""
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    pins = []
    for dep in deps:
        match = re.match(r"^([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([^,;\s]+)", dep)
        if match and not match.group(1).startswith("torch"):
            name = match.group(1).split("[", 1)[0]  # extras do not change the version
            pins.append(f"{name}=={match.group(2)}")
    return pins


def run(cmd: list[str], **kwargs: object) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/trendlens-floors"))
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder afterwards")
    parser.add_argument("pytest_args", nargs="*", default=["-q", "-x", "-p", "no:cacheprovider"])
    args = parser.parse_args()
    work: Path = args.dir
    shutil.rmtree(work, ignore_errors=True)
    src = work / "trendlens"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    shared = ROOT.parent / "shared"
    if shared.is_dir():  # tests read ../shared where it exists
        (work / "shared").symlink_to(shared)
    pins = floors(src / "pyproject.toml")
    constraints = work / "floors.txt"
    constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
    print("floors:", ", ".join(pins), flush=True)
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    py = str(venv / "bin" / "python")
    run([py, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    run([py, "-m", "pip", "install", "-q", TORCH])
    run([py, "-m", "pip", "install", "-q", "-c", str(constraints), "-e", ".[dev]"], cwd=src)
    run([py, "-m", "pip", "list"], cwd=src)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRENDLENS_")}
    code = subprocess.run([py, "-m", "pytest", *args.pytest_args], cwd=src, env=env).returncode
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"floors check: pytest exited {code}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
