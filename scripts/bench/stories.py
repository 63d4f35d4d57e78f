#!/usr/bin/env python
"""Clustering cost at 1k / 10k / 20k real-ish titles: wall time and peak memory of `StoryIndex`.

Titles are the real Zhihu and AG News headlines of `../shared/devsets/relevance.json` plus the
labelled day's items, cycled with a numbered suffix past their count (so the term index grows
like a real one). `--vectors` adds random unit vectors (384 dims) in place of precomputed
embeddings, so the dense top-k neighbour search is measured without the model's cost.

    .venv/bin/python scripts/bench/stories.py                 # lexical: 1k, 10k, 20k
    .venv/bin/python scripts/bench/stories.py --vectors --sizes 1000 10000

Beside each +50 it times `StoryIndex.occasions` on the result, which every re-index publishes.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

from agent.models import Topic  # noqa: E402
from agent.stories.grouping import StoryIndex  # noqa: E402

DEVSETS = ROOT.parent / "shared" / "devsets"


def titles() -> list[tuple[str, str]]:
    rel = json.loads((DEVSETS / "relevance.json").read_text(encoding="utf-8"))
    out = [(t.get("source", "news"), t["title"]) for lang in ("zh", "en") for t in rel[lang]["topics"]]
    day = json.loads((DEVSETS / "stories-2025-04-15.json").read_text(encoding="utf-8"))
    out += [(i["source"], i["title"]) for i in day["items"]]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000])
    parser.add_argument("--vectors", action="store_true", help="random unit vectors as precomputed embeddings")
    args = parser.parse_args()
    base = titles()
    sources = ["weibo", "zhihu", "baidu", "douyin"]
    rng = np.random.default_rng(0)
    print(f"{'topics':>7} {'first build s':>14} {'+50 new s':>10} {'occasions ms':>13} {'peak RSS MiB':>13} "
          f"{'clusters':>9}")
    for n in args.sizes:
        topics = [Topic(source=sources[i % 4], item_id=str(i), rank=i % 50 + 1,
                        title=base[i % len(base)][1] + (f" 第{i // len(base)}期" if i >= len(base) else ""))
                  for i in range(n + 50)]
        vecs = None
        if args.vectors:
            vecs = rng.standard_normal((n + 50, 384)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        index = StoryIndex()
        started = time.perf_counter()
        clusters = index.update(topics[:n], None if vecs is None else vecs[:n])
        build = time.perf_counter() - started
        started = time.perf_counter()
        held = index.update(topics, vecs)  # one source's fetch of 50 new topics
        step = time.perf_counter() - started
        started = time.perf_counter()
        index.occasions(held)  # what each re-index publishes beside the stories (agent/stories/occasions.py)
        occasions = (time.perf_counter() - started) * 1000
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # process peak RSS so far
        print(f"{n:>7} {build:>14.2f} {step:>10.2f} {occasions:>13.1f} {peak:>13.0f} {len(clusters):>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
