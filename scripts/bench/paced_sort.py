#!/usr/bin/env python
"""What the build's paced sort costs beside `sorted`: items shaped like the story update's links.

`ranking.pacing.sorted_paced` holds the interpreter lock a few ms at a time (runs sorted in C,
merged in Python) so that a decision is never kept waiting by a long sort; this times it
against one `sorted` call with the story update's key, (-probability, a, b), at the sizes of a
20k and a 100k index's strong links. Synthetic items (random probabilities and ids).

    .venv/bin/python scripts/bench/paced_sort.py
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from agent.ranking.pacing import sorted_paced


@dataclass(frozen=True, slots=True)
class _Link:
    probability: float
    a: str
    b: str


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[78_000, 400_000])
    args = parser.parse_args()
    rng = random.Random(1)

    def key(e: _Link) -> tuple[float, str, str]:
        return (-e.probability, e.a, e.b)

    print(f"{'items':>8} {'sorted ms':>10} {'sorted_paced ms':>16} {'ratio':>6}")
    for size in args.sizes:
        links = [_Link(rng.random(), f"zhihu:{rng.randrange(10**6)}", f"weibo:{rng.randrange(10**6)}")
                 for _ in range(size)]
        t0 = time.perf_counter()
        plain = sorted(links, key=key)
        t1 = time.perf_counter()
        paced = sorted_paced(links, key=key)
        t2 = time.perf_counter()
        assert paced == plain
        print(f"{size:>8} {(t1 - t0) * 1000:>10.0f} {(t2 - t1) * 1000:>16.0f} {(t2 - t1) / (t1 - t0):>6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
