#!/usr/bin/env python
"""The index's own cost as the held set grows to 100k topics: wall time, RSS, decision latency.

Each step does what the service does after an ingest request or a fetch: re-index everything
held (`Ranker.index`, building on the previous snapshot) and update the cross-platform story
index (`StoryIndex.update`). Topics arrive in requests of 5,000 (the `POST /v1/topics` cap).

Titles are real: the Zhihu and AG News topics of `../shared/devsets/relevance.json`, the
labelled day's items (`stories-2025-04-15.json`) and the titles in the recordings under
`../shared/upstream` (about 3,000 distinct). Past that count they repeat with a numbered
suffix (" 第N期" / " #N"), so the term index grows as a real one would, but the titles are
not all distinct real headlines. Queries are the devset's real utterances.

With the lexical embedder (default) no model runs, so the curve is the index's own cost;
`--dense` adds 384-dim feature-hashing vectors (`HashEmbedder`) as precomputed embeddings,
so the dense matrix and the dense neighbour search of the story index are in the curve too.

At each stage it prints: the time to reach it, peak and current RSS, the time of one
source's fetch of 50 new topics (re-index + stories; the source's list of 50 is replaced,
as a hot list moves on, while the ingested topics stay), the p50/p99 of one decision
(ranking with the gate, prior and MMR, as the live loop asks), and how long a full collection
of the cycle collector takes then (it holds the interpreter lock: a decision meeting one waits
that long).

At the `--during` stage (default 20,000) the request that brings the held set there (5,000
new topics) is re-indexed in a worker thread, as the service does, while decisions arrive on
the main thread at `--rate` a second (40: a hundred speakers, one line each 2.5 s): their
p50/p99 are printed beside the same decisions at the same rate on the same index with nothing
being built (target: p99 within 2x of idle), with the re-index's time meanwhile.

With `--store`, it then puts the last stage's topics into a fresh SQLite store (ingested, the
fetched source's 50 as a fetch cycle) and indexes them through `TopicIndex`, as the service does
(on the ranker and story index the stages built).
It then alternates, three times: a fetch of 50 new topics re-indexed by delta (the store's
changes since the last build, the changed source's rows read and merged; `Ranker.index`;
stories; the view the index publishes, with its cluster maps), and what each re-index did
before: the full read of every current row (`store.current()`) and the ranker's build of those
rows, with the load average beside them.

    .venv/bin/python scripts/bench/index_growth.py                       # lexical, to 100k
    .venv/bin/python scripts/bench/index_growth.py --dense --stages 20000 100000
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

from agent.models import Topic  # noqa: E402
from agent.ranking import Ranker, RankQuery  # noqa: E402
from agent.ranking.embedders import HashEmbedder  # noqa: E402
from agent.stories.grouping import StoryIndex, background_of  # noqa: E402
from harness import pct  # noqa: E402

SHARED = ROOT.parent / "shared"
FETCHED = "live"  # the fetched source: like a hot list, it holds its latest 50 items only
_TITLE_KEYS = {"title", "word", "note", "query"}


def _walk(obj: object, out: dict[str, str], source: str) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in _TITLE_KEYS and isinstance(value, str) and 4 <= len(value.strip()) <= 200:
                out.setdefault(value.strip(), source)
            else:
                _walk(value, out, source)
    elif isinstance(obj, list):
        for value in obj:
            _walk(value, out, source)


def real_titles() -> list[tuple[str, str]]:
    """(source, title) of every distinct real title in the devsets and the upstream recordings."""
    out: dict[str, str] = {}
    rel = json.loads((SHARED / "devsets" / "relevance.json").read_text(encoding="utf-8"))
    for lang in ("zh", "en"):
        for t in rel[lang]["topics"]:
            out.setdefault(t["title"], t.get("source") or "news")
    day = json.loads((SHARED / "devsets" / "stories-2025-04-15.json").read_text(encoding="utf-8"))
    for item in day["items"]:
        out.setdefault(item["title"], item["source"])
    for path in sorted((SHARED / "upstream").rglob("*.json")):
        try:
            _walk(json.loads(path.read_text(encoding="utf-8")), out, path.relative_to(SHARED / "upstream").parts[0])
        except (ValueError, UnicodeDecodeError):
            continue
    return [(source, title) for title, source in out.items()]


def queries() -> list[str]:
    rel = json.loads((SHARED / "devsets" / "relevance.json").read_text(encoding="utf-8"))
    return [q["text"] for lang in ("zh", "en") for q in rel[lang]["queries"]]


def make_topics(base: list[tuple[str, str]], start: int, count: int, source: str | None = None) -> list[Topic]:
    out = []
    for i in range(start, start + count):
        src, title = base[i % len(base)]
        lap = i // len(base)
        if lap:
            cjk = any("\u4e00" <= ch <= "\u9fff" for ch in title)
            title = f"{title} 第{lap}期" if cjk else f"{title} #{lap}"
        out.append(Topic(source=source or src, item_id=f"g{i}", title=title, heat=float(count - (i - start)),
                         rank=(i - start) % 50 + 1))
    return out


def rss_mib() -> tuple[float, float]:
    """(peak, current) resident set size of this process, MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    current = peak
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            current = int(line.split()[1]) / 1024
    return peak, current


class _Timed:
    """A real store whose reads are timed, the way the index asks for them."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.took: dict[str, float] = {}

    def _timed(self, name: str, fn: Any, *a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            self.took[name] = self.took.get(name, 0.0) + time.perf_counter() - t0

    def changes_since(self, version: Any) -> Any:
        return self._timed("changes", self._store.changes_since, version)

    def current(self, **kw: Any) -> Any:
        return self._timed("read", self._store.current, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def store_path(held: list[Topic], base: list[tuple[str, str]], made: int, ranker: Ranker, stories: StoryIndex,
               batch: int) -> None:
    """The held topics in a fresh SQLite store (ingested, and `FETCHED` as a real fetch), indexed the way
    the service does (`TopicIndex`, on the ranker and stories already holding them); then, alternating,
    a fetch of 50 new topics re-indexed by delta (read what changed + merge, `Ranker.index`, stories)
    and what each re-index did before: the full read of every current row, and the ranker's build of
    those rows (new objects, matched by text; built, not published)."""
    import asyncio
    import os
    import tempfile

    from agent.collect.fetching import SourceOutcome
    from agent.index.topic_index import TopicIndex
    from agent.store import SQLiteStore

    store = SQLiteStore(Path(tempfile.mkdtemp(prefix="tl-growth-")) / "trendlens.sqlite3")
    ingested = [t for t in held if t.source != FETCHED]
    for start in range(0, len(ingested), batch):
        store.ingest(ingested[start:start + batch])
    store.record_cycle([SourceOutcome(source=FETCHED, topics=[t for t in held if t.source == FETCHED])])
    timed = _Timed(store)
    index = TopicIndex(timed)  # type: ignore[arg-type]  # the store's own methods, timed
    index.ranker = ranker
    index._stories = stories  # what the stages built: no first story build of everything from nothing
    build = ranker.index
    took: dict[str, float] = {}

    def index_timed(topics: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return build(topics, **kw)
        finally:
            took["index"] = time.perf_counter() - t0

    ranker.index = index_timed  # type: ignore[method-assign]
    group = stories.update

    def stories_timed(*a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return group(*a, **kw)
        finally:
            took["stories"] = time.perf_counter() - t0

    stories.update = stories_timed  # type: ignore[method-assign]
    t0 = time.perf_counter()
    count = asyncio.run(index.refresh())
    print(f"store path (SQLite, {count} current rows): first build, full read "
          f"{timed.took['read']:.2f} s, whole build {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"{'run':>4} {'delta read ms':>14} {'index ms':>9} {'stories ms':>11} {'view ms':>8} {'+50 total ms':>13} "
          f"{'full read s':>12} {'its index ms':>13} {'load 1m':>8}", flush=True)

    async def cycle(n: int) -> tuple[float, float, float, float, float]:
        new = make_topics(base, made + 50 * n, 50, source=FETCHED)
        store.record_cycle([SourceOutcome(source=FETCHED, topics=new)])
        timed.took.clear()
        t0 = time.perf_counter()
        await index.refresh()
        total = time.perf_counter() - t0
        read = timed.took["changes"] + timed.took.get("read", 0.0)
        return read, took["index"], took["stories"], total - read - took["index"] - took["stories"], total

    for n in range(3):  # alternating: the machine's load moves both alike
        read, idx, grouped, rest, total = asyncio.run(cycle(n))
        t0 = time.perf_counter()
        rows = store.current()
        full = time.perf_counter() - t0
        assert rows == list(index.stored.values())  # the delta built exactly what a full read returns
        t0 = time.perf_counter()
        ranker.build(rows)
        full_index = time.perf_counter() - t0
        print(f"{n + 1:>4} {read * 1000:>14.1f} {idx * 1000:>9.0f} {grouped * 1000:>11.0f} {rest * 1000:>8.0f} "
              f"{total * 1000:>13.0f} "
              f"{full:>12.2f} {full_index * 1000:>13.0f} {os.getloadavg()[0]:>8.2f}", flush=True)
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stages", type=int, nargs="+", default=[1000, 5000, 10000, 20000, 50000, 100000])
    parser.add_argument("--batch", type=int, default=5000, help="topics per ingest request (the API's cap)")
    parser.add_argument("--dense", action="store_true", help="384-dim hashing vectors as precomputed embeddings")
    parser.add_argument("--decisions", type=int, default=200, help="decisions timed per stage")
    parser.add_argument("--during", type=int, default=20000,
                        help="the stage whose last request is re-indexed while decisions are timed (0: none)")
    parser.add_argument("--rate", type=float, default=40.0, help="decisions a second during and beside it")
    parser.add_argument("--store", action="store_true",
                        help="then time a fetch re-indexed by delta through the store, beside the full read")
    args = parser.parse_args()
    base = real_titles()
    utterances = queries()
    embedder = HashEmbedder(384) if args.dense else None
    ranker = Ranker(embedder)
    ranker.warm()  # CC-CEDICT read before the first build, as the service does (`Ranker.warm`)
    stories = StoryIndex(background=background_of(embedder))
    print(f"{len(base)} distinct real titles, repeated with a numbered suffix past that; "
          f"{'hashing vectors (384 dims)' if args.dense else 'lexical embedder'}; requests of {args.batch}",
          flush=True)
    print(f"{'held':>7} {'to reach s':>10} {'peak MiB':>9} {'RSS MiB':>8} {'+50 index ms':>13} "
          f"{'+50 stories ms':>15} {'+50 total ms':>13} {'decide p50 ms':>14} {'p99 ms':>7} "
          f"{'collection ms':>14}", flush=True)
    held: list[Topic] = []
    made = 0  # topics made so far: item ids never repeat
    elapsed = 0.0

    def reindex(topics: list[Topic]) -> tuple[float, float]:
        t0 = time.perf_counter()
        snap = ranker.index(topics)
        t1 = time.perf_counter()
        stories.update([e.topic for e in snap.entries], snap.matrix if embedder is not None else None, ids=snap.ids)
        return t1 - t0, time.perf_counter() - t1

    rng = np.random.default_rng(0)

    def decide(q: str) -> float:
        t0 = time.perf_counter()
        ranker.rank_sync(RankQuery(text=q, top_k=15, gate=True, prior=True, mmr=True))
        return (time.perf_counter() - t0) * 1000

    def paced(count: int, busy: threading.Event | None = None) -> list[float]:
        """`count` decisions at `--rate` a second (or, with `busy`, as many as arrive while it is set)."""
        out: list[float] = []
        period = 1.0 / args.rate
        due = time.perf_counter()
        while (len(out) < count) if busy is None else busy.is_set():
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            out.append(decide(str(rng.choice(utterances))))
            due += period
        return out

    def during(topics: list[Topic]) -> tuple[float, float]:
        """Re-index `topics` in a thread while decisions arrive on this one; then as many with nothing building."""
        took: list[float] = []
        running = threading.Event()
        running.set()

        def build() -> None:
            took.extend(reindex(topics))
            running.clear()

        previous = ranker.snapshot
        worker = threading.Thread(target=build)
        worker.start()
        busy = paced(0, running)
        worker.join()
        built, ranker.snapshot = ranker.snapshot, previous  # the same index again, nothing building
        idle = paced(len(busy))
        ranker.snapshot = built
        ratio = pct(busy, 0.99) / pct(idle, 0.99)
        print(f"decisions at {args.rate:.0f}/s during the re-index to {len(topics)} ({sum(took) * 1000:.0f} ms, "
              f"{len(busy)} decisions): p50 {pct(busy, 0.5):.1f} ms, p99 {pct(busy, 0.99):.1f} ms; idle on the "
              f"same index p50 {pct(idle, 0.5):.1f} ms, p99 {pct(idle, 0.99):.1f} ms; p99 ratio {ratio:.2f}",
              flush=True)
        return took[0], took[1]

    fetch = 0
    for stage in sorted(args.stages):
        while len(held) < stage:
            count = min(args.batch, stage - len(held))
            held += make_topics(base, made, count)
            made += count
            a, b = during(held) if stage == args.during and len(held) == stage and len(held) > count else reindex(held)
            elapsed += a + b
        peak, _ = rss_mib()
        # one source's fetch: its hot list of 50 is replaced by 50 new topics
        fetch += 1
        new = make_topics(base, made, 50, source=FETCHED)
        made += 50
        step = [t for t in held if t.source != FETCHED] + new
        idx_s, story_s = reindex(step)
        held = step
        ms = np.array([decide(str(q)) for q in rng.choice(utterances, size=args.decisions)])
        _, current = rss_mib()
        t0 = time.perf_counter()
        gc.collect()  # what a full collection now holds the interpreter for: a decision waits that long
        collection = time.perf_counter() - t0
        print(f"{len(held):>7} {elapsed:>10.1f} {peak:>9.0f} {current:>8.0f} {idx_s * 1000:>13.0f} "
              f"{story_s * 1000:>15.0f} {(idx_s + story_s) * 1000:>13.0f} {np.percentile(ms, 50):>14.1f} "
              f"{np.percentile(ms, 99):>7.1f} {collection * 1000:>14.0f}", flush=True)
    if args.store:
        store_path(held, base, made, ranker, stories, args.batch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
