#!/usr/bin/env python
"""Relevance evaluation through the shipped ranking path, on the real development sets.

Offline mode (default): every query of ../shared/devsets/relevance.json through
`StoryRanking.rank_queries_sync` — the call `trendlens rank` makes, one result per story as the live
loop ranks — on each language's own index; recall@1, recall@3 and MRR per language and channel.

    .venv/bin/python scripts/eval/relevance.py                         # report half of the dev set
    .venv/bin/python scripts/eval/relevance.py --split all --channels hybrid
    .venv/bin/python scripts/eval/relevance.py --sets fixtures/relevance   # synthetic regression sets
    .venv/bin/python scripts/eval/relevance.py --channels hybrid --mixed   # both languages in one index

Live mode (--live): a real service runtime holding both languages' topics; each mention is
said once in a fresh session, and each small-talk line of chitchat.json too, through the
`POST /v1/sessions/{id}/utterances` route itself (in-process ASGI). Per language: the rate of
mentions that put the right topic on the glasses, the rate of small talk that put anything
there, and utterance→decision latency.

    .venv/bin/python scripts/eval/relevance.py --live                  # report half
    .venv/bin/python scripts/eval/relevance.py --live --limit 60       # a quick subset

ASR mode (--asr, offline and live): every mention and small-talk line as a speech recogniser
delivers it (harness/asr.py: no punctuation, English lower-cased, numbers spoken); live, each
is said as two utterances of one session, and a caption shown after either counts.

    .venv/bin/python scripts/eval/relevance.py --live --asr            # report half, speech

Homophones (--homophones RATE, with either mode): that share of the Han characters of every
Chinese line is replaced by another character of the same pinyin (harness/homophones.py,
seeded), the Chinese recogniser's commonest error.

    .venv/bin/python scripts/eval/relevance.py --homophones 0.05 --channels hybrid

Real lists (--days): for each labelled dev day (../shared/days/<day>/), the service holds that
day's full lists as our parsers read them, stored as one fetch cycle (what `serve` indexes), and
hears, each in a fresh session through the same route: the mentions retold from the day's Baidu
descriptions and Zhihu excerpts (50-character windows), and the small talk of chitchat.json in
both languages. A mention's caption is right when it is the retold item or an item of the same
labelled story (stories-<day>.json), which is how Douyin and Weibo items are measured; V2EX
items are unmeasured (no retelling, no story shared with a retold item on these days). Each
day is judged twice: against the served index (which holds the descriptions the mentions are
cut from, so right captions there are an upper bound) and against its titles alone. With
--profiles DIR (written by `scripts/eval/tune_relevance.py --lodo-out DIR`) each day is judged with
the gate fitted without it: leave one day out.

    .venv/bin/python scripts/eval/relevance.py --days                  # shipped profile, report half
    .venv/bin/python scripts/eval/relevance.py --days --profiles /tmp/lodo   # leave one day out

Across languages (--cross): each labelled day's lists served as above, and in fresh sessions the
synthetic English probes about that day's Chinese stories (fixtures/relevance/crosslingual-synthetic,
written by us) and the real English small talk; with --profiles, leave one day out. Then the other
direction: the report half of relevance.json as one served index (Zhihu questions beside the AG News
titles of odd rows), the synthetic Chinese probes about those titles and the report half of the real
Chinese small talk; with --profiles, the Chinese bar fitted on the even rows (without-agnews-report.json).

    .venv/bin/python scripts/eval/relevance.py --cross
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from agent.commands.rank import load_topics
from agent.index.story_rank import StoryRanking
from agent.models import Topic
from agent.ranking import EmbeddingCache, Ranker, RankQuery, build_embedder, describe_embedder
from agent.ranking.scoring import CalibrationProfile
from agent.settings import Settings
from agent.sources.heat import parse_heat
from harness import devsets, pct
from harness.asr import asr_pieces, asr_text
from harness.devsets import pick
from harness.recall import recall_row

ROOT = devsets.ROOT


def offline(args: argparse.Namespace, settings: Settings) -> int:
    emb = build_embedder(settings, args.embedder)
    cache = EmbeddingCache.for_settings(settings)
    tmp = Path(tempfile.mkdtemp(prefix="tl-eval-"))
    print(f"embedder: {describe_embedder(emb)}\n")
    print("| set | lang | channel | recall@1 | recall@3 | MRR | top-1 right past the gate | n |\n"
          "|---|---|---|---|---|---|---|---|")
    for lang in args.langs:
        if args.sets:
            entries = load_topics(args.sets / lang / "topics.json")
            queries = [json.loads(x) for x in (args.sets / lang / "queries.jsonl").read_text().splitlines() if x]
            queries = [q for q in queries if q.get("relevant")]
            label = f"{args.sets.name} (synthetic)"
        else:
            rel, _ = devsets.load(args.devsets)
            entries = devsets.entries(rel["zh"]["topics"] + rel["en"]["topics"] if args.mixed
                                      else rel[lang]["topics"], tmp)
            queries = pick(rel[lang]["queries"], args.split, args.limit)
            label = f"devsets/{args.split}" + (" mixed index" if args.mixed else "") + (" asr" if args.asr else "") + (
                f" homophones {args.homophones}" if args.homophones else "")
        ranker = StoryRanking.grouped(Ranker(emb, entries, cache=cache))
        for channel in args.channels:
            if emb is None and channel != "lexical":
                continue
            t0 = time.perf_counter()
            texts = [heard(args, q["text"], lang) for q in queries]
            # recall of the matching alone: no heat prior, no diversity (`trendlens rank`'s contract)
            results = ranker.rank_queries_sync([RankQuery(text=t, top_k=10, prior=False, mmr=False) for t in texts],
                                               channels=channel)
            m = recall_row(results, queries)
            # the ceiling of a caption: the top-1 is right and clears the gate (heat prior on, as served)
            gated = ranker.rank_queries_sync(
                [RankQuery(text=t, top_k=1, gate=True, prior=True, mmr=False) for t in texts], channels=channel)
            kept = recall_row(gated, queries)["r@1"]
            print(f"| {label} | {lang} | {channel} | {m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} | {kept:.3f} "
                  f"| {m['n']} |", flush=True)
            print(f"  ({time.perf_counter() - t0:.1f}s)", file=sys.stderr)
    return 0


Say = Callable[..., Awaitable[tuple[dict, list[float]]]]


@asynccontextmanager
async def served(args: argparse.Namespace, settings: Settings, topics: list[Topic], *,
                 fetched: bool = False) -> AsyncIterator[tuple[Say, Any]]:
    """A real service runtime holding `topics` (stored as one fetch cycle when `fetched`, else
    ingested), and `say(*texts)`: the texts as consecutive utterances of a fresh session through the
    HTTP route, answered by the first decision that showed a caption (else the last) and the
    latency of each utterance."""
    import httpx

    from agent.api import create_app
    from agent.collect.fetching import SourceOutcome
    from agent.runtime import Runtime

    key = "eval-key"
    data_dir = Path(tempfile.mkdtemp(prefix="tl-live-"))
    cached = Path(settings.store.data_dir) / "embeddings.sqlite3"
    if cached.exists():  # topic vectors this checkout already computed: the service would have them too
        shutil.copy(cached, data_dir / "embeddings.sqlite3")
    settings = settings.model_copy(update={"offline": True, "api_keys": key, "data_dir": data_dir,
                                           "rate_limit_per_s": 100000.0, "rate_limit_burst": 100000})
    embedder = build_embedder if args.embedder is None else build_embedder(settings, args.embedder)
    runtime = Runtime.build(settings, embedder=embedder)
    if fetched:
        by_source: dict[str, list[Topic]] = {}
        for t in topics:
            by_source.setdefault(t.source, []).append(t)
        runtime.store.record_cycle([SourceOutcome(source=source, topics=ts) for source, ts in by_source.items()])
    else:
        runtime.store.ingest(topics)
    await runtime.start()
    app = create_app(settings, runtime=runtime, schedule=False, announce_key=False, start_runtime=False)
    headers = {"Authorization": f"Bearer {key}"}
    try:
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://eval", headers=headers, timeout=60) as http:

            async def say(*texts: str) -> tuple[dict, list[float]]:
                s = (await http.post("/v1/sessions", json={"profile": args.profile})).json()
                out: dict = {}
                elapsed: list[float] = []
                for text in texts:
                    t0 = time.perf_counter()
                    r = await http.post(f"/v1/sessions/{s['id']}/utterances", json={"text": text, "final": True})
                    elapsed.append((time.perf_counter() - t0) * 1000)
                    if r.status_code != 200:
                        raise SystemExit(f"utterance failed: {r.status_code} {r.text}")
                    out = r.json()
                    if shown(out) is not None:
                        break  # the caption is on the glasses: the rest of the line meets its display lock
                if shown(out) is None and len(texts) > 1:
                    # a recogniser's sentence is decided whole once no more of it came: by the service's
                    # timer a moment later (`SessionGate.sentence_due`), asked for here without the wait
                    session = runtime.sessions.peek(s["id"])
                    late = await runtime.release_held(session, before=float("inf")) if session else None
                    if late is not None and late.decision is not None:
                        out = {"decision": late.decision.public()}
                return out, elapsed

            yield say, runtime
    finally:
        await runtime.aclose()


def misheard(args: argparse.Namespace, text: str, lang: str) -> str:
    """A Chinese line with --homophones' share of its characters replaced by homophones."""
    return homophones(args).noisy(text, args.homophones) if args.homophones and lang == "zh" else text


def heard(args: argparse.Namespace, text: str, lang: str) -> str:
    """One line as the recogniser writes it: with homophones (--homophones), as ASR text (--asr)."""
    text = misheard(args, text, lang)
    return asr_text(text, lang) if args.asr else text


def homophones(args: argparse.Namespace) -> Any:
    if getattr(args, "sounds", None) is None:
        from harness.homophones import Homophones

        rel, chat = devsets.load(args.devsets)
        args.sounds = Homophones([t["title"] for t in rel["zh"]["topics"]] + [q["text"] for q in rel["zh"]["queries"]]
                                 + chat["zh"])
    return args.sounds


def spoken(args: argparse.Namespace, text: str, lang: str) -> tuple[str, ...]:
    """The utterances one line arrives as: itself, or two recognised pieces in ASR mode."""
    said = misheard(args, text, lang)
    return asr_pieces(said, lang) if args.asr else (said,)


def shown(out: dict) -> str | None:
    d = out.get("decision") or {}
    return d.get("topic_id") if d.get("show") else None


async def live(args: argparse.Namespace, settings: Settings) -> int:
    rel, chat = devsets.load(args.devsets)
    topics = [Topic(source=t["source"], item_id=t["id"], ref=t["id"], title=t["title"], lang=lang,
                    heat=parse_heat(t.get("heat")), heat_text=t.get("heat"), url=t.get("url"))
              for lang in ("zh", "en") for t in rel[lang]["topics"]]
    rows = []
    async with served(args, settings, topics) as (say, runtime):
        for lang in args.langs:
            mentions = pick(rel[lang]["queries"], args.split, args.limit)
            lines = pick(chat[lang], args.split, args.limit)
            right = wrong = 0
            lat: list[float] = []
            for q in mentions:
                out, ms = await say(*spoken(args, q["text"], lang))
                lat.extend(ms)
                topic_id = shown(out)
                if topic_id is not None:
                    want = {runtime.index.story_key(r) for r in q["relevant"]}
                    if topic_id in q["relevant"] or runtime.index.story_key(topic_id) in want:
                        right += 1
                    else:
                        wrong += 1
            chatty = 0
            for line in lines:
                out, ms = await say(*spoken(args, line, lang))
                lat.extend(ms)
                chatty += shown(out) is not None
            rows.append({"lang": lang, "mentions": len(mentions), "right": right / max(len(mentions), 1),
                         "wrong": wrong / max(len(mentions), 1), "small_talk": len(lines),
                         "small_talk_captioned": chatty / max(len(lines), 1), "p50_ms": pct(lat, 0.5),
                         "p99_ms": pct(lat, 0.99)})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        topics_n = len(runtime.index.ranker) if runtime.index.ranker else 0
        model = runtime.index.model_name
    print(f"live: {topics_n} topics indexed (both languages), profile {args.profile}, split {args.split}, "
          f"model {model}, {'ASR mode (two recognised pieces per line)' if args.asr else 'written lines'}"
          f"{f', homophones {args.homophones}' if args.homophones else ''}\n")
    print("| lang | mentions | right caption | wrong caption | small-talk lines | small talk captioned "
          "| decision p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['lang']} | {r['mentions']} | {r['right']:.3f} | {r['wrong']:.3f} | {r['small_talk']} "
              f"| {r['small_talk_captioned']:.3f} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} |")
    return 0


PLATFORMS = ("zhihu", "baidu", "douyin", "weibo", "v2ex")


def day_profile(args: argparse.Namespace, day: str) -> CalibrationProfile | None:
    """The profile fitted without `day` (--profiles), or None for the shipped one."""
    if args.profiles is None:
        return None
    return CalibrationProfile.from_json(json.loads((args.profiles / f"without-{day}.json").read_text()))


async def days(args: argparse.Namespace, settings: Settings) -> int:
    _, chat = devsets.load(args.devsets)
    lines = {lang: pick(chat[lang], args.split, args.limit) for lang in args.langs}
    results = []
    model = ""
    for name in args.day or devsets.DEV_DAYS:
        day = devsets.load_day(name, settings, args.devsets)
        for index in ("served", "titles"):
            topics = day.topics if index == "served" else devsets.titles_only(day.topics)
            async with served(args, settings, topics, fetched=True) as (say, runtime):
                profile = day_profile(args, name)
                if profile is not None and runtime.index.ranker is not None:
                    runtime.index.ranker.profile = profile  # the gate fitted without this day
                r: dict[str, Any] = {"day": name, "index": index, "topics": Counter(t.source for t in topics),
                                     "mentions": Counter(), "right": Counter(), "wrong": Counter(),
                                     "false": {lang: Counter() for lang in lines}, "lines": {}, "captioned": {},
                                     "lat": [], "right_all": 0}
                for m in day.mentions:
                    out, ms = await say(*spoken(args, m.text, "zh"))
                    r["lat"].extend(ms)
                    topic_id = shown(out)
                    # a mention measures its own platform, and each platform its story reaches
                    for platform in {m.source} | {day.source_of[t] for t in m.right}:
                        r["mentions"][platform] += 1
                        r["right"][platform] += topic_id in m.right
                    r["right_all"] += topic_id in m.right
                    if topic_id is not None and topic_id not in m.right:
                        r["wrong"][day.source_of.get(topic_id, "?")] += 1
                for lang, said in lines.items():
                    captioned = 0
                    for line in said:
                        out, ms = await say(*spoken(args, line, lang))
                        r["lat"].extend(ms)
                        topic_id = shown(out)
                        if topic_id is not None:
                            captioned += 1
                            r["false"][lang][day.source_of.get(topic_id, "?")] += 1
                    r["lines"][lang], r["captioned"][lang] = len(said), captioned
                r["n_mentions"], model = len(day.mentions), runtime.index.model_name
                results.append(r)
                print(json.dumps({"day": name, "index": index, "mentions": r["n_mentions"],
                                  "captioned": r["captioned"]}), file=sys.stderr, flush=True)
    gate = "gate fitted without each day (" + str(args.profiles) + ")" if args.profiles else "shipped profile"
    print(f"days: {', '.join(args.day or devsets.DEV_DAYS)}; {gate}; small talk: {args.split} half; "
          f"model {model}\n")
    print("| day | index | lang | small-talk lines | small talk captioned | false captions by platform |\n"
          "|---|---|---|---|---|---|")
    for r in results:
        for lang in lines:
            by = ", ".join(f"{p} {r['false'][lang][p]}" for p in PLATFORMS if r["false"][lang][p]) or "none"
            print(f"| {r['day']} | {r['index']} | {lang} | {r['lines'][lang]} "
                  f"| {r['captioned'][lang] / max(r['lines'][lang], 1):.3f} | {by} |")
    print("\nA mention measures its own platform and every platform its labelled story reaches.\n")
    print("| day | index | platform | topics | mentions measured | right caption | wrong captions onto it |\n"
          "|---|---|---|---|---|---|---|")
    for r in results:
        for p in PLATFORMS:
            n = r["mentions"][p]
            right = f"{r['right'][p] / n:.3f}" if n else "unmeasured"
            print(f"| {r['day']} | {r['index']} | {p} | {r['topics'][p]} | {n} | {right} | {r['wrong'][p]} |")
        print(f"| {r['day']} | {r['index']} | all | {sum(r['topics'].values())} | {r['n_mentions']} "
              f"| {r['right_all'] / max(r['n_mentions'], 1):.3f} | {sum(r['wrong'].values())} |")
    print("\n| index | platform | topics | mentions measured | right caption | wrong captions onto it "
          "| small talk captioned onto it (zh / en) |\n|---|---|---|---|---|---|---|")
    for index in ("served", "titles"):
        rs = [r for r in results if r["index"] == index]
        for p in PLATFORMS:
            n = sum(r["mentions"][p] for r in rs)
            right = f"{sum(r['right'][p] for r in rs) / n:.3f}" if n else "unmeasured"
            false = " / ".join(str(sum(r["false"][lang][p] for r in rs)) for lang in lines)
            print(f"| {index} | {p} | {sum(r['topics'][p] for r in rs)} | {n} | {right} "
                  f"| {sum(r['wrong'][p] for r in rs)} | {false} |")
        n_lines = {lang: sum(r["lines"][lang] for r in rs) for lang in lines}
        rate = " / ".join(f"{sum(r['captioned'][lang] for r in rs) / max(n_lines[lang], 1):.3f}" for lang in lines)
        lat = [x for r in rs for x in r["lat"]]
        n_all = sum(r["n_mentions"] for r in rs)
        print(f"| {index} | all | {sum(sum(r['topics'].values()) for r in rs)} | "
              f"{n_all} | {sum(r['right_all'] for r in rs) / max(n_all, 1):.3f} | "
              f"{sum(sum(r['wrong'].values()) for r in rs)} | rate {rate} (p50 {pct(lat, 0.5):.0f} ms, "
              f"p99 {pct(lat, 0.99):.0f} ms) |")
    return 0


PROBES = ROOT / "fixtures" / "relevance" / "crosslingual-synthetic" / "en-about-zh-synthetic.json"


async def cross(args: argparse.Namespace, settings: Settings) -> int:
    """English lines about each labelled day's Chinese stories (synthetic probes, written by us)
    and the report half of the real English small talk, each in a fresh session against that
    day's full lists as served."""
    probes = json.loads(PROBES.read_text(encoding="utf-8"))["days"]
    _, chat = devsets.load(args.devsets)
    lines = pick(chat["en"], args.split, args.limit)
    rows = []
    for name in args.day or devsets.DEV_DAYS:
        day = devsets.load_day(name, settings, args.devsets)
        async with served(args, settings, day.topics, fetched=True) as (say, runtime):
            profile = day_profile(args, name)
            if profile is not None and runtime.index.ranker is not None:
                runtime.index.ranker.profile = profile
            right = wrong = 0
            for p in probes[name]:
                out, _ = await say(*spoken(args, p["text"], "en"))
                topic_id = shown(out)
                right += topic_id in day.right_of[p["about"]]
                wrong += topic_id is not None and topic_id not in day.right_of[p["about"]]
            captioned = 0
            for line in lines:
                out, _ = await say(*spoken(args, line, "en"))
                captioned += shown(out) is not None
        rows.append((name, len(probes[name]), right, wrong, len(lines), captioned))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    rel, _ = devsets.load(args.devsets)
    zh_probes = json.loads(PROBES.with_name("zh-about-en-synthetic.json").read_text(encoding="utf-8"))
    topics = [Topic(source=t["source"], item_id=t["id"], ref=t["id"], title=t["title"], lang=lang)
              for lang in ("zh", "en") for t in pick(rel[lang]["topics"], "report", None)]
    zh_lines = pick(chat["zh"], args.split, args.limit)
    async with served(args, settings, topics) as (say, runtime):
        profile = day_profile(args, "agnews-report")
        if profile is not None and runtime.ranker is not None:
            runtime.ranker.profile = profile
        right = wrong = 0
        for p in zh_probes["halves"]["report"]:
            out, _ = await say(*spoken(args, p["text"], "zh"))
            topic_id = shown(out)
            ok = topic_id in {p["about"], *p.get("also", [])}
            right += ok
            wrong += topic_id is not None and not ok
        captioned = 0
        for line in zh_lines:
            out, _ = await say(*spoken(args, line, "zh"))
            captioned += shown(out) is not None
    rows.append(("relevance.json report half", len(zh_probes["halves"]["report"]), right, wrong, len(zh_lines),
                 captioned))
    gate = "gate fitted without each part (" + str(args.profiles) + ")" if args.profiles else "shipped profile"
    print(f"cross-lingual: English about Chinese lists, Chinese about English ones (synthetic probes, {PROBES.name}"
          f" and zh-about-en-synthetic.json); {gate}\n")
    print("| left out | probes | right caption | wrong caption | small-talk lines (the probes' language) "
          "| captioned |\n|---|---|---|---|---|---|")
    for name, n, right, wrong, n_lines, captioned in rows:
        print(f"| {name} | {n} | {right} | {wrong} | {n_lines} | {captioned / max(n_lines, 1):.3f} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devsets", type=Path, default=devsets.DEVSETS)
    ap.add_argument("--sets", type=Path, default=None, help="a <dir>/<lang>/{topics.json,queries.jsonl} set instead")
    ap.add_argument("--langs", nargs="+", default=["zh", "en"])
    ap.add_argument("--split", choices=["report", "tune", "all"], default="report")
    ap.add_argument("--limit", type=int, default=None, help="first N items of the split per language")
    ap.add_argument("--channels", nargs="+", default=["lexical", "dense", "hybrid"])
    ap.add_argument("--mixed", action="store_true", help="offline: one index of both languages' topics")
    ap.add_argument("--embedder", default=None, help="default: TRENDLENS_EMBEDDER")
    ap.add_argument("--live", action="store_true", help="replay through a real session (see above)")
    ap.add_argument("--profile", default="even-g1", help="live mode: the glasses profile of each session")
    ap.add_argument("--asr", action="store_true", help="lines as a speech recogniser delivers them (see above)")
    ap.add_argument("--homophones", type=float, default=0.0, help="share of Han characters replaced (see above)")
    ap.add_argument("--days", action="store_true", help="judge on the labelled days' real lists (see above)")
    ap.add_argument("--cross", action="store_true", help="English probes about each day's Chinese lists (see above)")
    ap.add_argument("--day", nargs="+", default=None, help="--days: only these days")
    ap.add_argument("--profiles", type=Path, default=None,
                    help="--days: a folder of without-<day>.json profiles (tune_relevance.py --lodo-out)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    settings = Settings()
    if args.cross:
        return asyncio.run(cross(args, settings))
    if args.days:
        return asyncio.run(days(args, settings))
    if args.live:
        return asyncio.run(live(args, settings))
    return offline(args, settings)


if __name__ == "__main__":
    sys.exit(main())
