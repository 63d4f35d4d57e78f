"""`make bench`: regenerate the tables of BENCHMARKS.md that are cheap enough to redo (minutes, not hours).

    .venv/bin/python scripts/tools/bench_tables.py [--check] [NAME ...]

Each such table sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` and is exactly the
standard output of its command (BLOCKS below), so the file shows which command wrote it. `--check`
runs nothing and fails when a block is missing or a marker has no command. The other tables (load
tests, 100k-topic growth, the cluster matrix) take too long or need a quiet machine; their commands
stand beside them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "BENCHMARKS.md"

#: Explicit registry: block name → the command whose stdout is the block (run from the repository root).
BLOCKS: dict[str, list[str]] = {
    "side-by-side-fetch": ["scripts/bench/side_by_side.py", "--parts", "fetch"],
    "side-by-side-relevance": ["scripts/bench/side_by_side.py", "--parts", "relevance"],
    "intents": ["scripts/eval/intents.py"],
}

_BLOCK = re.compile(r"(<!-- bench:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /bench:(?P=name) -->)", re.S)


def render(name: str) -> str:
    cmd = [sys.executable, *BLOCKS[name]]
    print(f"+ {' '.join(BLOCKS[name])}", file=sys.stderr, flush=True)
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return out.strip("\n") + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", choices=[[], *BLOCKS], help="blocks to regenerate (default: all)")
    ap.add_argument("--check", action="store_true", help="only check that every block has its markers")
    args = ap.parse_args()
    text = BENCHMARKS.read_text(encoding="utf-8")
    found = {m.group("name") for m in _BLOCK.finditer(text)}
    problems = [f"no block {n!r} in BENCHMARKS.md" for n in BLOCKS if n not in found]
    problems += [f"block {n!r} in BENCHMARKS.md has no command in BLOCKS" for n in found - set(BLOCKS)]
    if problems or args.check:
        for p in problems:
            print(f"bench_tables: {p}", file=sys.stderr)
        return 1 if problems else 0
    wanted = args.names or list(BLOCKS)
    bodies = {name: render(name) for name in wanted}
    text = _BLOCK.sub(lambda m: m.group(1) + bodies.get(m.group("name"), m.group("body")) + m.group(4), text)
    BENCHMARKS.write_text(text, encoding="utf-8")
    print(f"rewrote {', '.join(wanted)} in {BENCHMARKS.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
