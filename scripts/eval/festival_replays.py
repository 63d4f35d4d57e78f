#!/usr/bin/env python
"""Every replay of every festival night, and their sums: what a change to the gate or the ranking costs across
the shapes a held-out night may take, in one command.

A rule tuned on the judged replay (3 s a line, written, every list) can pay for a meme there with small talk at a
slower table, in the recogniser's text or on a night of fewer lists (docs/relevance.md, "A weaker meme waits three
readings"). For each festival night in ../shared this runs `scripts/eval/festival.py` as

* `REPLAYS`: the judged pace; slower tables (4, 5 and 12 s: at 12 s the display is always free, so the gate alone
  decides); the recogniser's text (`--asr`, and at 12 s); homophones (`--homophones` 0.05, 0.1, 0.2);
* and the night's lists two at a time and one at a time (`--lists`), as many as the night holds (a night of two
  lists has no pair but itself),

and prints per replay the trend lines captioned, small talk and greetings captioned, flicker (a replacement that
put no trend line's caption up), wrong captions and the gist; then the sums, the objective the display's rules
were chosen by (hits less small talk, greetings and flicker) and the worst replay by share of trend lines captioned.

    .venv/bin/python scripts/eval/festival_replays.py                                # the shipped settings
    .venv/bin/python scripts/eval/festival_replays.py --gate weaker_reads=1.5 --json > /tmp/w15.json
    .venv/bin/python scripts/eval/festival_replays.py --night 2026-02-16 --replays "3 s" speech
    .venv/bin/python scripts/eval/festival_replays.py --compare /tmp/shipped.json /tmp/w15.json   # no run: the change

About 6 s a replay on two cores once the embedding cache is built: both dev nights, 30 replays, 3 min.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.story_days import NightError, source_folders


def _festival() -> ModuleType:
    """scripts/eval/festival.py, the eval this one replays (scripts are not a package)."""
    spec = importlib.util.spec_from_file_location("festival", Path(__file__).with_name("festival.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["festival"] = module  # its dataclasses look their module up as it runs
    spec.loader.exec_module(module)
    return module


festival = _festival()

#: The replays every night gets: festival.py's arguments for each (the judged pace first).
REPLAYS: dict[str, dict[str, Any]] = {
    "3 s": {},
    "4 s": {"gap": 4.0},
    "5 s": {"gap": 5.0},
    "12 s": {"gap": 12.0},
    "speech": {"asr": True},
    "speech, 12 s": {"asr": True, "gap": 12.0},
    "homophones 0.05": {"homophones": 0.05},
    "homophones 0.1": {"homophones": 0.1},
    "homophones 0.2": {"homophones": 0.2},
}
#: What each replay's row says, from festival.py's totals (flicker and the objective are worked out from them).
COUNTS = ("trend_lines", "hits", "small_captioned", "greetings_captioned", "wrong", "gist", "gist_off")


@dataclass(frozen=True)
class Replay:
    night: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


def plan(night: str, day_dir: Path, names: Sequence[str] | None = None) -> list[Replay]:
    """The replays of one night: `REPLAYS`, then each pair of its lists (when it holds three or more) and each
    list alone (when it holds two or more), read from the night's folders; `names` keeps only those."""
    lists = source_folders(day_dir)
    out = [Replay(night, name, args) for name, args in REPLAYS.items()]
    if len(lists) >= 3:
        out += [Replay(night, " + ".join(pair), {"lists": list(pair)}) for pair in itertools.combinations(lists, 2)]
    if len(lists) >= 2:
        out += [Replay(night, f"{one} alone", {"lists": [one]}) for one in lists]
    return [r for r in out if names is None or r.name in names]


def row(replay: Replay, total: dict[str, int]) -> dict[str, Any]:
    """One replay's figures: festival.py's counts, flicker and the objective."""
    out: dict[str, Any] = {"night": replay.night, "replay": replay.name, **{k: total.get(k, 0) for k in COUNTS}}
    out["flicker"] = total.get("replaced", 0) - total.get("replaced_hit", 0)
    out["objective"] = out["hits"] - out["small_captioned"] - out["greetings_captioned"] - out["flicker"]
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The sums over `rows`, and the worst replay: the lowest share of trend lines captioned (most small talk on
    a tie)."""
    sums = {k: sum(r[k] for r in rows) for k in (*COUNTS, "flicker", "objective")}
    worst = min(rows, key=lambda r: (r["hits"] / max(r["trend_lines"], 1), -r["small_captioned"]), default=None)
    return {"replays": len(rows), **sums, "worst": worst}


def run(replays: list[Replay], base: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for replay in replays:
        args = festival.night_args(replay.night, profile=base.profile, embedder=base.embedder, gate=base.gate,
                                   **replay.args)
        rows.append(row(replay, festival.evaluate(args)["total"]["all"]))
        print(f"  {replay.night} {replay.name}: {rows[-1]['hits']}/{rows[-1]['trend_lines']}", file=sys.stderr)
    return rows


def print_rows(rows: list[dict[str, Any]], total: dict[str, Any]) -> None:
    print("| night | replay | trend lines captioned | small talk | greetings | flicker | wrong | gist | gist off "
          "| objective |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['night']} | {r['replay']} | {r['hits']}/{r['trend_lines']} | {r['small_captioned']} "
              f"| {r['greetings_captioned']} | {r['flicker']} | {r['wrong']} | {r['gist']} | {r['gist_off']} "
              f"| {r['objective']} |")
    print(f"| **all {total['replays']}** | | {total['hits']}/{total['trend_lines']} | {total['small_captioned']} "
          f"| {total['greetings_captioned']} | {total['flicker']} | {total['wrong']} | {total['gist']} "
          f"| {total['gist_off']} | **{total['objective']}** |")
    if total["worst"] is not None:
        w = total["worst"]
        print(f"\nworst replay: {w['night']} {w['replay']}, {w['hits']}/{w['trend_lines']}, "
              f"small talk {w['small_captioned']}")


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What moved between two `--json` outputs: one line per replay that changed, then the sums."""
    old = {(r["night"], r["replay"]): r for r in before["rows"]}
    keys = ("hits", "small_captioned", "greetings_captioned", "flicker", "wrong", "gist", "gist_off")
    lines = []
    for r in after["rows"]:
        o = old.get((r["night"], r["replay"]))
        if o is None:
            lines.append(f"{r['night']} {r['replay']}: not in the first run")
            continue
        # a figure a run from before it was counted lacks reads as 0
        moved = [f"{k} {o.get(k, 0)} -> {r.get(k, 0)}" for k in keys if o.get(k, 0) != r.get(k, 0)]
        if moved:
            lines.append(f"{r['night']} {r['replay']}: " + ", ".join(moved))
    a, b = before["total"], after["total"]
    lines.append("all: " + ", ".join(f"{k} {a.get(k, 0)} -> {b.get(k, 0)}" for k in (*keys, "objective")))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--night", action="append", default=[], metavar="DAY",
                    help="a festival night in ../shared (repeatable; default: every one there)")
    ap.add_argument("--replays", nargs="+", default=None, metavar="NAME",
                    help="only these replays (names as printed: '3 s', speech, 'zhihu + douyin', 'baidu alone')")
    ap.add_argument("--gate", action="append", default=[], metavar="NAME=VALUE",
                    help="change one field of the session gate's policy for every replay (as festival.py)")
    ap.add_argument("--profile", default="even-g1", help="the sessions' display profile")
    ap.add_argument("--embedder", default=None, help="as TRENDLENS_EMBEDDER (default: the service's)")
    ap.add_argument("--json", action="store_true", help="print the rows and sums as JSON (for --compare)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                    help="run nothing: what moved between two --json outputs")
    args = ap.parse_args(argv)
    if args.compare:
        try:
            before, after = (json.loads(p.read_text(encoding="utf-8")) for p in args.compare)
            print("\n".join(compare(before, after)))
        except (OSError, ValueError, KeyError) as exc:
            print(f"festival replays: cannot compare {args.compare[0]} and {args.compare[1]}: {exc}", file=sys.stderr)
            return 2
        return 0
    replays = []
    for night in args.night or festival.nights():
        devset, day_dir = festival.night_paths(night)
        if not devset.is_file() or not day_dir.is_dir():
            print(f"festival replays: the real data is not here ({devset}, {day_dir})", file=sys.stderr)
            return 2
        replays += plan(night, day_dir, args.replays)
    if not replays:
        print(f"festival replays: no replay is named {', '.join(args.replays or [])}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    try:
        rows = run(replays, args)
    except NightError as exc:
        print(f"festival replays: {exc}", file=sys.stderr)
        return 2
    total = summary(rows)
    if args.json:
        print(json.dumps({"gate": args.gate, "rows": rows, "total": total}, ensure_ascii=False, indent=1))
    else:
        print_rows(rows, total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
