#!/usr/bin/env python
"""The festival night: a dinner table's conversations against that night's real hot lists.

The service fetches `../shared/days/<night>` as the answers of the sources that night holds (each
recorded list served at its source's endpoints through the collector's transport, in whatever shape its
recorder saved it (an API's JSON or a page's HTML, `harness.story_days.recording`), parsed by our parsers,
stored and indexed as a fetch cycle; a source the recorders kept no list of is not served), then
hears each conversation of `../shared/devsets/festival-<night>.json` in one session, line after
line, `--gap` seconds apart
on the service's own clock (`Runtime.handle_utterance(..., now=)`, the call the utterance route
makes), so the display lock and the cooldown see a real table's pace without waiting for it. A
caption held back while the one before it was read goes up by itself when it falls due, as the
service's timer puts it up (`Runtime.release_held`), and counts for the line before it.

Scored as the set's README says:

* trend line: a hit when a caption about one of its `items` appears on that line or the next
  (hits out of 20, per conversation, per language); for each miss, why (the decision records of
  both lines: display lock, no candidate, a wrong caption, ...);
* cont line: a caption of the same meme there is the trend line's late caption when that one was
  still waiting, otherwise a repeat (counted apart);
* small line: any caption is a false one, but the late caption of the trend line just before it;
* greeting: any caption is counted apart (a festival greeting tells the wearer nothing);
* gist: a hit carries the gist when the caption's lines beyond the title and its meta line share
  at least `GIST_TERMS` of the gist's terms that the matched title does not hold;
* gist off: a hit whose caption ends on the title, or a piece of the summary, of another list entry that
  is not one of the meme's items (the set's README: the items are every entry about the meme), so it
  tells of something else.

A replacement that puts up a hit is the display yielding; any other replacement is flicker.
`--dinners` also says the demo's two synthetic dinners (agent/synthetic/conversations) on the
synthetic snapshot and lists their captions (they carry no labels); `--gate NAME=VALUE` changes a
field of the session gate's policy, to compare settings (docs/relevance.md, "The display yields").

    .venv/bin/python scripts/eval/festival.py             # the tables, every festival night in ../shared
    .venv/bin/python scripts/eval/festival.py --night 2026-02-16
    .venv/bin/python scripts/eval/festival.py --json      # the same figures as JSON
    .venv/bin/python scripts/eval/festival.py --dinners --gate min_read_s=3 --lines
    .venv/bin/python scripts/eval/festival.py --devset fixtures/festival/customs.json \
        --day-dir ../shared/days/2026-02-16 --gap 12     # a table written here (fixtures/festival/README.md)
    .venv/bin/python scripts/eval/festival.py --chitchat --gap 12   # real small talk on each night's lists
    .venv/bin/python scripts/eval/festival.py --asr       # each line as a recogniser delivers it, in two pieces
    .venv/bin/python scripts/eval/festival.py --homophones 0.1   # a tenth of each Chinese line's characters misheard
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from agent.live.gating import GatePolicy
from agent.ranking import build_embedder
from agent.ranking.lexical import tokenize
from agent.settings import Settings
from agent.sources import source_class
from harness.asr import asr_pieces
from harness.festival_format import read_devset
from harness.paths import SHARED
from harness.story_days import NightError, recording, source_folders

DAY = "2024-02-09"
DAY_DIR = SHARED / "days" / DAY
DEVSET = SHARED / "devsets" / f"festival-{DAY}.json"


def nights() -> list[str]:
    """Every festival night in ../shared with its lists: the days that have a `festival-<day>.json`."""
    return sorted(p.stem.removeprefix("festival-") for p in (SHARED / "devsets").glob("festival-*.json")
                  if (SHARED / "days" / p.stem.removeprefix("festival-")).is_dir())


def night_paths(day: str) -> tuple[Path, Path]:
    """(devset, day folder) of one night."""
    return SHARED / "devsets" / f"festival-{day}.json", SHARED / "days" / day


def night_args(day: str, **changes: Any) -> argparse.Namespace:
    """One night of ../shared as `evaluate` reads it, at the judged pace on the default display, with `changes`
    to its arguments (`gap`, `lists`, `asr`, `gate`, ...)."""
    devset, day_dir = night_paths(day)
    return argparse.Namespace(**{"gap": GAP_S, "profile": "even-g1", "embedder": None, "devset": devset,
                                 "day_dir": day_dir, "gate": [], "dinners": False, **changes})


def night_sources(day_dir: Path, lists: Sequence[str] | None = None) -> list[str]:
    """The sources the night holds a list of (2026-02-16: Baidu and Douyin only; any registered source's
    folder counts), or of them those in `lists` (`--lists`: the night as a service that follows only those
    platforms would have seen it)."""
    return [s for s in source_folders(day_dir) if lists is None or s in lists]


GAP_S = 3.0
#: Terms of the gist, beyond the title's own, a caption must show to say what the meme is: one
#: shared bigram is often a word of the meta line or a name; two are a clause of the story.
GIST_TERMS = 2
LANG_OF = {"zh": "zh-CN", "en": "en-US"}


def day_transport(day_dir: Path = DAY_DIR, lists: Sequence[str] | None = None) -> httpx.MockTransport:
    """Each source's recorded list at every endpoint that source asks for it (`Source.endpoints`), and every
    other request a 404. The recording is whichever shape its recorder saved (Weibo's mobile API or its summary
    page, Zhihu's API or its page): the endpoint asked first is answered with it, and each parser reads every
    shape its source answers in, so a night recorded from another endpoint is served as it was recorded."""
    settings = Settings()
    routes: list[tuple[str, str, bytes, str]] = []
    for name in night_sources(day_dir, lists):
        body = recording(day_dir / name).read_bytes()
        kind = "text/html" if body.lstrip()[:1] == b"<" else "application/json"
        for endpoint in source_class(name).from_settings(settings).endpoints():
            url = httpx.URL(endpoint.url)
            routes.append((url.host, url.path, body, kind))

    def answer(request: httpx.Request) -> httpx.Response:
        for host, path, body, kind in routes:
            if request.url.host == host and request.url.path == path:
                return httpx.Response(200, content=body, headers={"Content-Type": kind})
        return httpx.Response(404, text="not recorded")

    return httpx.MockTransport(answer)


def norm(title: str) -> str:
    """A title as compared with the set's labels: no spaces, no hashtag marks (Baidu keeps `#…#`)."""
    return "".join(title.replace("#", "").split())


def terms(text: str) -> set[str]:
    return set(tokenize(text))


@dataclass
class Heard:
    """One line as the service answered it."""

    line: dict[str, Any]
    decision: dict[str, Any]
    caption: dict[str, Any] | None  # the caption shown for it, with its topic's (source, title)
    about: str | None  # the trend id the caption is about, else None
    by_clock: bool = False  # the caption went up by itself after the line (held back, then read)


def body_lines(caption: dict[str, Any]) -> list[str]:
    """The caption's lines after its title and its meta line: where it can say what the meme is."""
    title = norm(caption["title"])
    lines = list(caption["lines"])
    i = 0
    while i < len(lines) and norm(lines[i].rstrip("…")) and norm(lines[i].rstrip("…")) in title:
        i += 1
    return lines[i + 1:]  # the line after the title is the meta line (platforms, ranks, heat)


def told_by(caption: dict[str, Any], listed: dict[str, str | None],
            summaries: dict[str, str | None] | None = None) -> list[str | None]:
    """For each line beyond the title and meta line that is another list entry's title (whole, or cut
    to the display's width with "…"), the trend that entry is labelled under (None: no labelled meme).
    `summaries` (each list entry's summary, and its trend): a last line that is none of them but a piece of a
    summary, read across the display's wrapped lines, is told by that entry, the meme it is labelled under.
    A story of two memes of one person takes its gist from the other one's summary as readily as its title."""
    out: list[str | None] = []
    for line in body_lines(caption):
        text = norm(line.rstrip("…"))
        cut = line.rstrip() != line.rstrip().rstrip("…")
        for title, trend in listed.items():
            if text and (title == text or (cut and title.startswith(text))):
                out.append(trend)
                break
    if not out and summaries:
        said = norm("".join(line.rstrip().rstrip("…") for line in body_lines(caption)))
        told = next((trend for text, trend in summaries.items() if said and said in text), "")
        if told != "":
            out.append(told)
    return out


def off_gist(caption: dict[str, Any], trend: str) -> bool:
    """The caption's last lines name another entry that is not about the meme: the items of a trend are
    every entry of the night about it (the set's README), so any other title tells the wearer of
    something else (a place the meme shares, the show's running order)."""
    return any(about != trend for about in caption.get("told_by", ()))


def carries_gist(caption: dict[str, Any], gist: str) -> bool:
    wanted = terms(gist) - terms(caption["title"])
    return len(terms(" ".join(body_lines(caption))) & wanted) >= GIST_TERMS


def lists_of(args: argparse.Namespace) -> list[str] | None:
    """The lists `--lists` keeps (None: every list the night holds)."""
    chosen = getattr(args, "lists", None)
    if not chosen:
        return None
    held = source_folders(args.day_dir) if getattr(args, "day_dir", None) is not None else []
    unknown = sorted(set(chosen) - set(held))
    if unknown:
        raise SystemExit(f"--lists: no recorded list for {', '.join(unknown)}; the night holds {', '.join(held)}")
    return list(chosen)


def gate_policy(overrides: list[str]) -> GatePolicy:
    """The service's gate policy with `NAME=VALUE` fields changed (`--gate`), to compare settings."""
    fields = {f.name: f.type for f in dataclasses.fields(GatePolicy)}
    changes: dict[str, float] = {}
    for item in overrides:
        name, _, value = item.partition("=")
        if name not in fields:
            raise SystemExit(f"--gate {item!r}: not a GatePolicy field; valid: {', '.join(fields)}")
        changes[name] = float(value)
    return dataclasses.replace(GatePolicy(), **changes)  # type: ignore[arg-type]


def why(heard: Heard) -> str:
    """A line's decision in a few words: its reason and what it was about."""
    d = heard.decision
    if d.get("show"):
        cap = heard.caption or {}
        return f"{d['reason']}: {cap.get('source', '?')} {cap.get('title', '?')!s}"
    detail = f" ({d['detail']})" if d.get("detail") else ""
    held = f" [{d['title']}]" if d.get("title") else ""  # what it would have shown
    return f"{d.get('reason', '?')}{detail}{held}"


#: With --asr, the seconds between the two pieces a recogniser cuts one line into: a pause inside a
#: sentence, shorter than the gap between two speakers. The window joins pieces that follow within its
#: JOIN_S (2 s); at 1 s the next line's first piece came 2 s after this one's last and was joined to it.
PIECE_S = 0.5


def spoken(args: argparse.Namespace, text: str, lang: str) -> tuple[str, ...]:
    """The utterances one line arrives as: itself, or with --asr two recognised pieces (harness/asr.py);
    with --homophones, a Chinese line's share of characters heard as others of the same pinyin first."""
    rate = getattr(args, "homophones", 0.0)
    if rate and lang == "zh":
        text = misheard(args).noisy(text, rate)
    return asr_pieces(text, lang) if getattr(args, "asr", False) else (text,)


def misheard(args: argparse.Namespace) -> Any:
    """The homophone errors of --homophones, drawn as `relevance.py --homophones` draws them (the dev sets'
    characters, the same seed), one generator for the run, so a figure reproduces."""
    if getattr(args, "sounds", None) is None:
        from harness import devsets
        from harness.homophones import Homophones

        rel, chat = devsets.load()
        args.sounds = Homophones([t["title"] for t in rel["zh"]["topics"]] + [q["text"] for q in rel["zh"]["queries"]]
                                 + chat["zh"])
    return args.sounds


async def say(runtime: Any, session: Any, pieces: tuple[str, ...], at: float) -> Any:
    """The pieces of one line, `PIECE_S` apart; its result: a piece's that put a caption up, else the last's."""
    result = None
    for k, piece in enumerate(pieces):
        out = await runtime.handle_utterance(session, piece, now=at + k * PIECE_S)
        if result is None or out.captions or not result.captions:
            result = out
    return result


async def hear_conversations(args: argparse.Namespace, devset: dict[str, Any]) -> tuple[list[list[Heard]], int]:
    """Every conversation through one service, each in its own session; the topics it indexed."""
    from agent.runtime import Runtime

    settings = Settings()
    data_dir = Path(tempfile.mkdtemp(prefix="tl-festival-"))
    cached = Path(settings.store.data_dir) / "embeddings.sqlite3"
    if cached.exists():  # topic vectors this checkout already computed: the service would have them too
        shutil.copy(cached, data_dir / "embeddings.sqlite3")
    settings = settings.model_copy(update={"data_dir": data_dir, "offline": False,
                                           "sources": night_sources(args.day_dir, lists_of(args)),
                                           "api_keys": "festival-eval"})
    embedder = build_embedder if args.embedder is None else build_embedder(settings, args.embedder)
    runtime = Runtime.build(settings, transport=day_transport(args.day_dir, lists_of(args)), embedder=embedder)
    runtime.collector.fallback_to_replay = False  # the recorded night, never the synthetic snapshot
    if args.gate:
        runtime.sessions.policy = gate_policy(args.gate)  # type: ignore[attr-defined]
    try:
        outcomes = await runtime.collector.cycle()
        failed = [f"{o.source}: {o.error}" for o in outcomes if not o.ok]
        if failed:
            raise SystemExit("a recorded list did not parse: " + "; ".join(failed))
        await runtime.start()
        stored = runtime.index.stored
        trend_of = {(item["source"], norm(item["title"])): trend["id"]
                    for trend in devset["trends"] for item in trend["items"]}
        # every title the lists hold, with the trend it is labelled under (None: about no labelled meme)
        listed = {norm(row.topic.title): trend_of.get((row.topic.source, norm(row.topic.title)))
                  for row in stored.values()}
        # every summary the lists hold, with its entry's trend: a gist may be another entry's own text
        summaries = {norm(row.topic.summary): trend_of.get((row.topic.source, norm(row.topic.title)))
                     for row in stored.values() if row.topic.summary}
        out = []
        for conv in devset["conversations"]:
            session, _ = runtime.sessions.create(args.profile)
            start = 1_000_000.0
            heard = []
            lines = conv["lines"]
            for i, line in enumerate(lines):
                result = await say(runtime, session, spoken(args, line["text"], conv["lang"]), start + i * args.gap)
                # a caption held back while the one before it was read goes up by itself before the next
                # line (one due as the next is said waits for it: that line comes first; after the last:
                # whenever it falls due); it belongs to this line, the newest
                late = await runtime.release_held(session, before=start + (i + 1) * args.gap if i + 1 < len(lines)
                                                  else float("inf"))
                # what fell due is the sentence's own decision when the recogniser's last piece waited for
                # more of it, else a story held back while a caption was read: only that is a late caption
                by_clock = bool(late.captions and not result.captions) and late.decision.held_s is not None
                if late.decision is not None and not result.captions and (
                        late.captions or result.decision is None or result.decision.reason == "not_enough_speech"):
                    result = late
                caption = None
                about = None
                # the decision as its JSON form, to which this eval adds what it was about
                decision = result.decision.public() if result.decision is not None else {}
                row = stored.get(str(decision.get("topic_id")))
                if row is not None:  # the topic decided on, shown or held back: its title and trend
                    decision["title"] = f"{row.topic.source} {row.topic.title}"
                    decision["about"] = trend_of.get((row.topic.source, norm(row.topic.title)))
                if result.captions:
                    caption = result.captions[-1].to_public()
                    row = stored.get(caption["topic_id"])
                    if row is not None:
                        about = trend_of.get((row.topic.source, norm(row.topic.title)))
                        caption["source"], caption["title"] = row.topic.source, row.topic.title
                        caption["told_by"] = told_by(caption, listed, summaries)
                heard.append(Heard(line, decision, caption, about, by_clock))
            out.append(heard)
        return out, len(stored)
    finally:
        await runtime.aclose()
        runtime.store.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def score(conv: dict[str, Any], heard: list[Heard], listed: set[str] | None = None) -> dict[str, Any]:
    """One conversation's figures, by the README's rules. `listed`: the trends with an item on the lists
    served (`--lists`); a trend line about another is no trend line that night (`unlisted`), and a
    caption on it is a wrong one."""
    r: dict[str, Any] = {"id": conv["id"], "lang": conv["lang"], "trend_lines": 0, "hits": 0, "gist": 0,
                         "gist_off": 0, "unlisted": 0,
                         "repeats": 0, "small_lines": 0, "small_captioned": 0, "greetings": 0,
                         "greetings_captioned": 0, "wrong": 0, "replaced": 0, "replaced_hit": 0, "by_clock": 0,
                         "misses": [],
                         "false": [],
                         "lines": []}
    late_for: set[int] = set()  # lines whose caption was the late caption of the trend line before
    hit_line: dict[int, int] = {}
    for i, h in enumerate(heard):
        kind = h.line["kind"]
        r["lines"].append({"kind": kind, "trend": h.line.get("trend"), "text": h.line["text"], "why": why(h),
                           "about": h.about, "caption": h.caption["lines"] if h.caption else None,
                           "decision": h.decision})
        r["replaced"] += h.decision.get("reason") == "replaced"
        if kind != "trend":
            continue
        if listed is not None and h.line["trend"] not in listed:
            r["unlisted"] += 1
            continue
        r["trend_lines"] += 1
        for j in (i, i + 1):
            if j < len(heard) and heard[j].caption is not None and heard[j].about == h.line["trend"]:
                hit_line[i] = j
                if j != i:
                    late_for.add(j)
                break
        if i in hit_line:
            r["hits"] += 1
            r["by_clock"] += heard[hit_line[i]].by_clock
            cap = heard[hit_line[i]].caption
            assert cap is not None
            r["gist"] += carries_gist(cap, h.line["gist"]) if h.line.get("gist") else 0  # a set may label none
            r["gist_off"] += off_gist(cap, h.line["trend"])
        else:
            nxt = heard[i + 1] if i + 1 < len(heard) else None
            r["misses"].append({"text": h.line["text"], "trend": h.line["trend"], "why": why(h),
                                "next": why(nxt) if nxt is not None else None})
    hit_at = set(hit_line.values())
    for i, h in enumerate(heard):
        kind = h.line["kind"]
        shown = h.caption is not None
        # a replacement that put a trend line's caption up is the yield working; any other is flicker
        r["replaced_hit"] += h.decision.get("reason") == "replaced" and i in hit_at
        if kind == "cont":
            r["repeats"] += shown and h.about == h.line["trend"] and i not in late_for
            if shown and h.about != h.line["trend"]:
                r["wrong"] += 1
                r["false"].append({"kind": kind, "text": h.line["text"], "why": why(h)})
        elif kind == "small":
            r["small_lines"] += 1
            if shown and i not in late_for:
                r["small_captioned"] += 1
                r["false"].append({"kind": kind, "text": h.line["text"], "why": why(h)})
        elif kind == "greeting":
            r["greetings"] += 1
            if shown and i not in late_for:
                r["greetings_captioned"] += 1
                r["false"].append({"kind": kind, "text": h.line["text"], "why": why(h)})
        elif kind == "trend" and shown and h.about != h.line["trend"] and i not in late_for:
            r["wrong"] += 1  # a caption about something else on a trend line
    return r


FIGURES = ("trend_lines", "unlisted", "hits", "gist", "gist_off", "repeats", "small_lines", "small_captioned",
           "greetings", "greetings_captioned", "wrong", "replaced", "replaced_hit", "by_clock")


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"all": Counter(), "by_lang": {}}
    for r in rows:
        out["all"].update({k: r[k] for k in FIGURES})
        out["by_lang"].setdefault(r["lang"], Counter()).update({k: r[k] for k in FIGURES})
    return {"all": dict(out["all"]), "by_lang": {k: dict(v) for k, v in out["by_lang"].items()}}


def chitchat_devset() -> dict[str, Any]:
    """`../shared/devsets/chitchat.json` (real: LCCC and DailyDialog) as two conversations of small talk, one
    per language (`--chitchat`): what a night's lists make of talk that is about none of them."""
    chat = json.loads((SHARED / "devsets" / "chitchat.json").read_text(encoding="utf-8"))
    return {"trends": [], "conversations": [
        {"id": f"chitchat-{lang}", "lang": lang,
         "lines": [{"text": c if isinstance(c, str) else c.get("text", ""), "kind": "small"} for c in chat[lang]]}
        for lang in ("zh", "en")]}


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    devset = chitchat_devset() if getattr(args, "chitchat", False) else read_devset(args.devset)
    heard, topics = asyncio.run(hear_conversations(args, devset))
    served = set(night_sources(args.day_dir, lists_of(args)))
    listed = {t["id"] for t in devset["trends"] if any(i["source"] in served for i in t["items"])}
    rows = [score(conv, h, listed) for conv, h in zip(devset["conversations"], heard, strict=True)]
    extra = {"dinners": asyncio.run(hear_dinners(args))} if args.dinners else {}
    return {**extra, "day": devset.get("day") or args.day_dir.name, "lists": sorted(served), "topics": topics,
            "gap_s": args.gap,
            "profile": args.profile,
            "gate": dataclasses.asdict(gate_policy(args.gate)),
            "conversations": rows, "total": totals(rows)}


async def hear_dinners(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The demo's synthetic dinners (agent/synthetic/conversations) at their own pace on the synthetic
    snapshot, each in one session: every caption shown and every replacement, for judging by eye
    (the lines carry no labels)."""
    from agent.resources import conversations_dir
    from agent.runtime import Runtime

    settings = Settings()
    data_dir = Path(tempfile.mkdtemp(prefix="tl-dinners-"))
    cached = Path(settings.store.data_dir) / "embeddings.sqlite3"
    if cached.exists():
        shutil.copy(cached, data_dir / "embeddings.sqlite3")
    settings = settings.model_copy(update={"data_dir": data_dir, "offline": True, "api_keys": "festival-eval"})
    embedder = build_embedder if args.embedder is None else build_embedder(settings, args.embedder)
    runtime = Runtime.build(settings, embedder=embedder)
    if args.gate:
        runtime.sessions.policy = gate_policy(args.gate)  # type: ignore[attr-defined]
    out = []
    try:
        await runtime.collector.cycle()
        await runtime.start()
        for path in sorted(conversations_dir().glob("*.jsonl")):
            lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
            session, _ = runtime.sessions.create(args.profile)
            shown = []
            for line, after in zip(lines, [*lines[1:], None], strict=True):
                result = await runtime.handle_utterance(session, line["text"], now=1_000_000.0 + line["t"])
                late = await runtime.release_held(session, before=1_000_000.0 + after["t"] if after else float("inf"))
                for heard in (result, late):
                    d = heard.decision
                    if heard.captions:
                        shown.append({"t": line["t"], "text": line["text"], "reason": d.reason if d else None,
                                      "title": heard.captions[-1].title, "detail": d.detail if d else ""})
            out.append({"conversation": path.stem, "lines": len(lines), "captions": shown,
                        "replaced": sum(c["reason"] == "replaced" for c in shown)})
    finally:
        await runtime.aclose()
        runtime.store.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    return out


def print_tables(result: dict[str, Any]) -> None:
    unlisted = result["total"]["all"]["unlisted"]
    print(f"festival {result['day']} ({', '.join(result['lists'])}): {result['topics']} topics indexed, "
          f"lines {result['gap_s']:g} s apart, one session per conversation, profile {result['profile']}"
          + (f"; {unlisted} trend lines about no item of these lists left out" if unlisted else "") + "\n")
    print("| conversation | lang | trend hits | of them by the clock | gist on hits | another entry's words as gist "
          "| repeats on cont | small talk captioned | greetings captioned | other wrong captions "
          "| replacements (of them hits) |\n|---|---|---|---|---|---|---|---|---|---|---|")

    def row(name: str, lang: str, r: dict[str, Any]) -> None:
        print(f"| {name} | {lang} | {r['hits']}/{r['trend_lines']} | {r['by_clock']} | {r['gist']}/{r['hits']} "
              f"| {r['gist_off']} | {r['repeats']} "
              f"| {r['small_captioned']}/{r['small_lines']} | {r['greetings_captioned']}/{r['greetings']} "
              f"| {r['wrong']} | {r['replaced']} ({r['replaced_hit']}) |")

    for r in result["conversations"]:
        row(r["id"], r["lang"], r)
    for lang, r in result["total"]["by_lang"].items():
        row("all", lang, r)
    row("**all**", "both", result["total"]["all"])
    print("\nMisses (the decision on the trend line, then on the next line):\n")
    for r in result["conversations"]:
        for m in r["misses"]:
            print(f"- {r['id']} `{m['trend']}`: {m['why']} → next: {m['next']}")
    print("\nCaptions where none belongs:\n")
    for r in result["conversations"]:
        for f in r["false"]:
            print(f"- {r['id']} {f['kind']}: {f['text'][:40]} → {f['why']}")
    for dinner in result.get("dinners", []):
        print(f"\n{dinner['conversation']} (synthetic demo dinner, {dinner['lines']} lines): "
              f"{len(dinner['captions'])} captions, {dinner['replaced']} replacements")
        for c in dinner["captions"]:
            print(f"- {c['t']:>3}s {c['text'][:30]} → {c['reason']}: {c['title'][:40]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--gap", type=float, default=GAP_S, help="seconds between two lines (the service's clock)")
    ap.add_argument("--profile", default="even-g1", help="the session's display profile")
    ap.add_argument("--embedder", default=None, help="as TRENDLENS_EMBEDDER (default: the service's)")
    ap.add_argument("--night", action="append", default=[], metavar="DAY",
                    help="a festival night in ../shared (repeatable; default: every one there)")
    ap.add_argument("--devset", type=Path, default=None, help="a night in the shared format, with --day-dir")
    ap.add_argument("--day-dir", type=Path, default=None)
    ap.add_argument("--lists", type=lambda v: [x.strip() for x in v.split(",") if x.strip()], default=None,
                    metavar="A,B", help="serve only these of the night's lists (e.g. zhihu,douyin: a night whose "
                                        "summaries are thin), as a service following only them would see it")
    ap.add_argument("--chitchat", action="store_true",
                    help="say the real small talk of ../shared/devsets/chitchat.json on each night's lists instead")
    ap.add_argument("--lines", action="store_true", help="also print every line's decision")
    ap.add_argument("--asr", action="store_true",
                    help="say each line as a speech recogniser delivers it: no punctuation, English lower-cased, "
                         "numbers spoken, cut in two pieces (harness/asr.py)")
    ap.add_argument("--homophones", type=float, default=0.0, metavar="RATE",
                    help="that share of each Chinese line's Han characters heard as another of the same pinyin "
                         "(harness/homophones.py, seeded), before --asr cuts it")
    ap.add_argument("--dinners", action="store_true",
                    help="also say the demo's synthetic dinners on the synthetic snapshot and list their captions")
    ap.add_argument("--gate", action="append", default=[], metavar="NAME=VALUE",
                    help="change one field of the session gate's policy (agent/live/gating.py GatePolicy)")
    args = ap.parse_args(argv)
    if args.devset is not None or args.day_dir is not None:
        runs = [(args.devset, args.day_dir)]
    else:
        runs = [night_paths(day) for day in (args.night or nights())]
    for devset, day_dir in runs:
        if args.chitchat and day_dir is not None and day_dir.is_dir():
            continue  # the small talk comes from chitchat.json
        if devset is None or day_dir is None or not devset.is_file() or not day_dir.is_dir():
            print(f"festival eval: the real data is not here ({devset}, {day_dir})", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.WARNING)
    try:
        results = [evaluate(argparse.Namespace(**{**vars(args), "devset": devset, "day_dir": day_dir}))
                   for devset, day_dir in runs]
    except NightError as exc:
        print(f"festival eval: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0], ensure_ascii=False, indent=1))
        return 0
    for result in results:
        print_tables(result)
        if args.lines:
            for r in result["conversations"]:
                print(f"\n{r['id']}:")
                for line in r["lines"]:
                    print(f"  [{line['kind']:8}] {line['text'][:34]} → {line['why']}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
