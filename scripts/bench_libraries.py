"""Compare the library-backed parts against the hand-written ones they replaced (issue 16).

The old implementation of each module is loaded from git (`--base`, default the commit before
the change), so both run in one process on the same inputs. Real data only: the recordings in
../shared/upstream and the titles and utterances of ../shared/devsets/relevance.json.

    .venv/bin/python scripts/bench_libraries.py feed
    .venv/bin/python scripts/bench_libraries.py bm25 [--sizes 1000,100000]
    .venv/bin/python scripts/bench_libraries.py graphemes
    .venv/bin/python scripts/bench_libraries.py limiter
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
BASE = "5bf8bce"  # last commit before issue 16
sys.path.insert(0, str(ROOT))


def load_base(path: str, base: str) -> ModuleType:
    """`path` as it was at commit `base`, importable beside the current package (relative imports work)."""
    source = subprocess.run(["git", "show", f"{base}:{path}"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    package = path.rsplit("/", 1)[0].replace("/", ".")
    name = f"{package}._base_{Path(path).stem}"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[name] = module
    exec(compile(source, f"{base}:{path}", "exec"), module.__dict__)  # noqa: S102 - our own history
    return module


def timed(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    """Median wall seconds of `repeat` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


# -- feed ------------------------------------------------------------------------------------------
def bench_feed(args: argparse.Namespace) -> None:
    from agent.errors import SourceError
    from agent.settings import Settings
    from agent.sources.feed import Feed
    old = load_base("agent/sources/feed.py", args.base)
    settings = Settings()
    bodies = [p for p in sorted((ROOT / "fixtures" / "sources" / "feed").iterdir())
              if not p.name.endswith(".expected.json")] + sorted((SHARED / "upstream" / "google_trends").glob("*.xml"))
    same = 0
    for path in bodies:
        body = path.read_bytes()
        outs = []
        for impl in (old.Feed(settings), Feed(settings)):
            try:
                outs.append([t.model_dump(mode="json", exclude={"fetched_at"}) for t in impl.parse(body)])
            except SourceError as exc:
                outs.append({"error": exc.kind, "message": str(exc)})
        t_old, _ = timed(lambda b=body: _quiet(old.Feed(settings).parse, b))
        t_new, _ = timed(lambda b=body: _quiet(Feed(settings).parse, b))
        verdict = "identical" if outs[0] == outs[1] else "DIFFERENT"
        same += outs[0] == outs[1]
        print(f"{path.relative_to(ROOT.parent)}: {verdict}; parse {t_old * 1e3:.2f} ms -> {t_new * 1e3:.2f} ms")
        if outs[0] != outs[1]:
            _print_diff(outs[0], outs[1])
    print(f"{same}/{len(bodies)} bodies parse identically (topics with every field, extra included)")


def _print_diff(old: Any, new: Any) -> None:
    if not (isinstance(old, list) and isinstance(new, list) and len(old) == len(new)):
        print("  old:", json.dumps(old, ensure_ascii=False)[:400])
        print("  new:", json.dumps(new, ensure_ascii=False)[:400])
        return
    for rank, (a, b) in enumerate(zip(old, new, strict=True), 1):
        flat_a = {**{k: v for k, v in a.items() if k != "extra"}, **{f"extra.{k}": v for k, v in a["extra"].items()}}
        flat_b = {**{k: v for k, v in b.items() if k != "extra"}, **{f"extra.{k}": v for k, v in b["extra"].items()}}
        for key in sorted(set(flat_a) | set(flat_b)):
            if flat_a.get(key) != flat_b.get(key):
                print(f"  item {rank} {key}: {flat_a.get(key)!r} -> {flat_b.get(key)!r}")


def _quiet(fn: Callable[[bytes], Any], body: bytes) -> Any:
    from agent.errors import SourceError
    try:
        return fn(body)
    except SourceError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=sorted(PARTS))
    parser.add_argument("--base", default=BASE, help="commit holding the hand-written versions")
    parser.add_argument("--sizes", default="1000,100000", help="bm25: index sizes")
    args = parser.parse_args()
    PARTS[args.part](args)


PARTS: dict[str, Callable[[argparse.Namespace], None]] = {"feed": bench_feed}

if __name__ == "__main__":
    main()
