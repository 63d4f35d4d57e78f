"""Compare the library-backed parts against the hand-written ones they replaced or were measured against.

The old implementation of each module is loaded from git (`--base`, default the commit before
the change), so both run in one process on the same inputs. Real data only: the recordings in
../shared/upstream and the titles and utterances of ../shared/devsets/relevance.json.

    .venv/bin/python scripts/bench/libraries.py feed
    .venv/bin/python scripts/bench/libraries.py bm25 [--sizes 1000,100000]
    .venv/bin/python scripts/bench/libraries.py graphemes
    .venv/bin/python scripts/bench/libraries.py limiter
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

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
BASE = "5bf8bce"  # last commit before issue 16


def load_base(path: str, base: str, replace: dict[str, str] | None = None) -> ModuleType:
    """`path` as it was at commit `base`, importable beside the current package (relative imports work).

    `replace` rewrites import lines, e.g. {"from .graphemes": "from ._base_graphemes"}, so an old
    module uses the old versions of its siblings.
    """
    source = subprocess.run(["git", "show", f"{base}:{path}"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    for old, new in (replace or {}).items():
        source = source.replace(old, new)
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
    """Median CPU seconds of this process over `repeat` runs, and the last result.

    CPU time, not wall time: the machine is shared, and the parts measured are single-threaded.
    """
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
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
        for impl in (old.Feed(settings), Feed()):
            try:
                outs.append([t.model_dump(mode="json", exclude={"fetched_at"}) for t in impl.parse(body)])
            except SourceError as exc:
                outs.append({"error": exc.kind, "message": str(exc)})
        t_old, _ = timed(lambda b=body: _quiet(old.Feed(settings).parse, b))
        t_new, _ = timed(lambda b=body: _quiet(Feed().parse, b))
        verdict = "identical" if outs[0] == outs[1] else "DIFFERENT"
        same += outs[0] == outs[1]
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else "../" / path.relative_to(ROOT.parent)
        print(f"{shown}: {verdict}; parse {t_old * 1e3:.2f} ms -> {t_new * 1e3:.2f} ms CPU")
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


# -- bm25 ----------------------------------------------------------------------------------------
class Bm25sIndex:
    """`BM25Index`'s interface on bm25s (lucene variant, our tokenizer), for the comparison.

    bm25s's lucene weight omits BM25's (k1 + 1) factor; it is put back so scores equal ours and
    the ranker's saturation `1 - exp(-bm25 / tau)` keeps its meaning.
    """

    def __init__(self, docs: list[str], *, k1: float = 1.2, b: float = 0.75, from_ids: bool = False) -> None:
        import bm25s

        from agent.ranking.lexical import tokenize
        self.n, self.k1, self.b = len(docs), k1, b
        self._bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        tokens = [tokenize(doc) for doc in docs]
        if from_ids:  # hand bm25s integer ids and the vocabulary, skipping its own string pass
            vocab: dict[str, int] = {}
            ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in tokens]
            self._bm25.index((ids, vocab), show_progress=False)
        else:
            self._bm25.index(tokens, show_progress=False)
        self._vocab = self._bm25.vocab_dict
        self._scores = self._bm25.scores

    def __len__(self) -> int:
        return self.n

    def scores(self, terms: Any) -> Any:
        import numpy as np

        from agent.ranking.lexical import query_terms
        if isinstance(terms, str):
            terms = query_terms([(terms, 1.0)])
        out = np.zeros(self.n, dtype=np.float32)
        indptr, indices, data = self._scores["indptr"], self._scores["indices"], self._scores["data"]
        for term, qw in terms.items():
            i = self._vocab.get(term)
            if i is not None:
                lo, hi = indptr[i], indptr[i + 1]
                out[indices[lo:hi]] += np.float32(qw * (self.k1 + 1.0)) * data[lo:hi]
        return out


def bench_bm25(args: argparse.Namespace) -> None:
    import numpy as np

    from agent.ranking.lexical import BM25Index, query_terms
    logging_quiet()
    old = load_base("agent/ranking/lexical.py", args.base)
    data = json.loads((SHARED / "devsets" / "relevance.json").read_text())
    titles = [t["title"] for lang in ("zh", "en") for t in data[lang]["topics"]]
    queries = [query_terms([(q["text"], 1.0)]) for lang in ("zh", "en") for q in data[lang]["queries"]]
    impls: dict[str, Callable[[list[str]], Any]] = {
        f"ours ({args.base})": lambda docs: old.BM25Index(docs),
        "ours (this tree)": lambda docs: BM25Index(docs),
        "bm25s, tokens": lambda docs: Bm25sIndex(docs),
        "bm25s, ids+vocab": lambda docs: Bm25sIndex(docs, from_ids=True),
    }
    print(f"{len(titles)} real titles (relevance.json zh+en), {len(queries)} real queries; "
          "larger sizes repeat the titles")
    print("| implementation | topics | build CPU s (tokenize included) | query p50 ms | query p99 ms "
          "| max score diff |")
    print("|---|---|---|---|---|---|")
    for size in (int(x) for x in args.sizes.split(",")):
        docs = (titles * (size // len(titles) + 1))[:size]
        reference = None
        for label, build in impls.items():
            build_s, index = timed(lambda b=build, d=docs: b(d), repeat=5 if size <= 10_000 else 3)
            lat = []
            for q in queries:
                start = time.process_time()
                index.scores(q)
                lat.append(time.process_time() - start)
            sample = np.stack([index.scores(q) for q in queries[:: max(1, len(queries) // 50)]])
            reference = sample if reference is None else reference
            diff = float(np.abs(sample - reference).max() / max(1e-9, float(np.abs(reference).max())))
            p50, p99 = np.percentile(lat, [50, 99]) * 1e3
            print(f"| {label} | {size} | {build_s:.3f} | {p50:.3f} | {p99:.3f} | {diff:.1e} (relative) |")
    # recall@3 in lexical mode: the real dev set, each language's own topic list
    print("\n| implementation | lang | recall@3 (lexical) |\n|---|---|---|")
    for label, build in impls.items():
        for lang in ("zh", "en"):
            topics = data[lang]["topics"]
            index = build([t["title"] for t in topics])
            hits = total = 0
            for q in data[lang]["queries"]:
                if not q["relevant"]:
                    continue
                s = index.scores(query_terms([(q["text"], 1.0)]))
                top = np.argsort(-s, kind="stable")[:3]
                hits += any(topics[i]["id"] in q["relevant"] and s[i] > 0 for i in top)
                total += 1
            print(f"| {label} | {lang} | {hits / total:.3f} ({hits}/{total}) |")


# -- graphemes and widths -------------------------------------------------------------------------
def real_texts() -> list[str]:
    """Every string in the real dev sets and JSON recordings (titles, utterances, summaries)."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            if node.strip() and not node.startswith("http"):
                out.append(node)
        elif isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted((SHARED / "devsets").glob("*.json")) + sorted((SHARED / "upstream").rglob("*.json")):
        try:
            walk(json.loads(path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
    return out


def bench_graphemes(args: argparse.Namespace) -> None:
    # the package re-exports functions under these names: import the modules themselves
    new_fit = importlib.import_module("agent.captions.fit")
    new_g = importlib.import_module("agent.captions.graphemes")
    new_w = importlib.import_module("agent.captions.widths")
    old_g = load_base("agent/captions/graphemes.py", args.base)
    to_old = {"from .graphemes import": "from ._base_graphemes import",
              "from .widths import": "from ._base_widths import"}
    old_w = load_base("agent/captions/widths.py", args.base, to_old)
    old_fit = load_base("agent/captions/fit.py", args.base, to_old)
    texts = real_texts()
    n_chars = sum(len(t) for t in texts)
    print(f"{len(texts)} real strings, {n_chars} code points (../shared/devsets + ../shared/upstream JSON)")
    seg_diff = [t for t in texts if list(old_g.graphemes(t)) != list(new_g.graphemes(t))]
    print(f"segmentation differs on {len(seg_diff)} strings")
    for t in seg_diff[:5]:
        a, b = list(old_g.graphemes(t)), list(new_g.graphemes(t))
        first = next(i for i, (x, y) in enumerate(zip(a + [""], b + [""], strict=False)) if x != y)
        print(f"  {t[max(0, first - 5):first + 5]!r}: {a[first:first + 3]!r} -> {b[first:first + 3]!r}")
    clusters = {c for t in texts for c in new_g.graphemes(t)}
    for label, old_fn, new_fn in (("column", old_w.column_width, new_w.column_width),
                                  ("G1 px", old_w.g1_pixel_width, new_w.g1_pixel_width)):
        differ = sorted(c for c in clusters if old_fn(c) != new_fn(c))
        print(f"{label} width differs on {len(differ)} of {len(clusters)} distinct clusters: "
              + ", ".join(f"{c!r} {old_fn(c)}->{new_fn(c)}" for c in differ[:8]))
    profiles = ("even-g1", "vuzix-z100", "rokid-glasses")
    fit_diff = sum(old_fit.fit_text(t, p) != new_fit.fit_text(t, p) for t in texts for p in profiles)
    print(f"fit_text output differs on {fit_diff} of {len(texts) * len(profiles)} (string, profile) pairs")
    seg_old, _ = timed(lambda: [list(old_g.graphemes(t)) for t in texts], repeat=5)
    seg_new, _ = timed(lambda: [list(new_g.graphemes(t)) for t in texts], repeat=5)
    print(f"graphemes() over all strings: {seg_old * 1e3:.1f} ms -> {seg_new * 1e3:.1f} ms CPU "
          f"({n_chars / seg_old / 1e6:.2f} -> {n_chars / seg_new / 1e6:.2f} M code points/s)")

    def uncached_widths(g: ModuleType) -> Callable[[], Any]:
        def run() -> Any:
            g.is_wide_cluster.cache_clear()
            g.is_emoji_cluster.cache_clear()
            return [g.is_wide_cluster(c) for c in clusters]
        return run

    w_old, _ = timed(uncached_widths(old_g), repeat=5)
    w_new, _ = timed(uncached_widths(new_g), repeat=5)
    print(f"is_wide_cluster, cold cache, {len(clusters)} clusters: {w_old * 1e3:.1f} ms -> {w_new * 1e3:.1f} ms CPU")
    fit_old, _ = timed(lambda: [old_fit.fit_text(t, "even-g1") for t in texts[:5000]], repeat=3)
    fit_new, _ = timed(lambda: [new_fit.fit_text(t, "even-g1") for t in texts[:5000]], repeat=3)
    n = min(5000, len(texts))
    print(f"fit_text(even-g1), {n} strings: {fit_old * 1e3:.0f} ms -> {fit_new * 1e3:.0f} ms CPU "
          f"({fit_old / n * 1e6:.1f} -> {fit_new / n * 1e6:.1f} us per caption)")


# -- rate limiter ------------------------------------------------------------------------------------
def bench_limiter(args: argparse.Namespace) -> None:
    """Same request timelines through our token bucket and through each `limits` strategy.

    A token bucket (rate r/s, burst B) has no exact `limits` counterpart; the closest item is
    "B per B/r seconds" (same burst, same long-run rate). Time is simulated (limits reads time.time).
    """
    from unittest import mock

    import limits
    from limits.storage import MemoryStorage
    from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter, SlidingWindowCounterRateLimiter

    from agent.api.security import RateLimiter
    clock = [1_000_000.0]
    for rate, burst in ((20.0, 60), (1.0, 3)):
        window = burst / rate
        timelines = {
            f"burst of {burst}, then {rate:g}/s for 10 s": [0.0] * burst + [i / rate for i in range(1, int(10 * rate))],
            f"steady {2 * rate:g}/s for 10 s (twice the rate)": [i / (2 * rate) for i in range(int(20 * rate))],
        }
        print(f"\nrate {rate:g}/s, burst {burst} (limits item: {burst} per {window:g} s)")
        print("| timeline | token bucket (ours) | " + " | ".join(
            ("moving window", "fixed window", "sliding window counter")) + " |")
        print("|---|---|---|---|---|")
        for name, times in timelines.items():
            row = []
            ours = RateLimiter(rate, burst)
            waits = [ours.take("k", now=t) for t in times]
            row.append(_limiter_cell(waits))
            for strategy in (MovingWindowRateLimiter, FixedWindowRateLimiter, SlidingWindowCounterRateLimiter):
                item = limits.RateLimitItemPerSecond(burst, int(window))
                limiter = strategy(MemoryStorage())
                waits = []
                with mock.patch("time.time", lambda: clock[0]):
                    start = clock[0]
                    for t in times:
                        clock[0] = start + t
                        if limiter.hit(item, "k"):
                            waits.append(0.0)
                        else:
                            waits.append(max(0.0, limiter.get_window_stats(item, "k").reset_time - clock[0]))
                    clock[0] += 3600
                row.append(_limiter_cell(waits))
            print(f"| {name} | " + " | ".join(row) + " |")


def _limiter_cell(waits: list[float]) -> str:
    refused = [w for w in waits if w > 0]
    if not refused:
        return f"{len(waits)}/{len(waits)} allowed"
    return (f"{len(waits) - len(refused)}/{len(waits)} allowed, Retry-After "
            f"{max(1, round(min(refused)))}-{max(1, round(max(refused)))} s")


def logging_quiet() -> None:
    import logging
    logging.getLogger("bm25s").setLevel(logging.ERROR)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=sorted(PARTS))
    parser.add_argument("--base", default=BASE, help="commit holding the hand-written versions")
    parser.add_argument("--sizes", default="1000,100000", help="bm25: index sizes")
    args = parser.parse_args()
    PARTS[args.part](args)


PARTS: dict[str, Callable[[argparse.Namespace], None]] = {
    "feed": bench_feed, "bm25": bench_bm25, "graphemes": bench_graphemes, "limiter": bench_limiter,
}

if __name__ == "__main__":
    main()
