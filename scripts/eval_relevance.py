#!/usr/bin/env python
"""Relevance evaluation through the shipped ranking path, on the real development sets.

Offline mode (default): every query of ../shared/devsets/relevance.json through
`Ranker.rank_many_sync` — the call `trendlens rank` makes — on each language's own index;
recall@1, recall@3 and MRR per language and channel.

    .venv/bin/python scripts/eval_relevance.py                         # report half of the dev set
    .venv/bin/python scripts/eval_relevance.py --split all --channels hybrid
    .venv/bin/python scripts/eval_relevance.py --sets fixtures/relevance   # synthetic regression sets

Live mode (--live): a real service runtime holding both languages' topics; each mention is
said once in a fresh session, and each small-talk line of chitchat.json too, through the
`POST /v1/sessions/{id}/utterances` route itself (in-process ASGI). Per language: the rate of
mentions that put the right topic on the glasses, the rate of small talk that put anything
there, and utterance→decision latency.

    .venv/bin/python scripts/eval_relevance.py --live                  # report half
    .venv/bin/python scripts/eval_relevance.py --live --limit 60       # a quick subset
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devsets  # noqa: E402

from agent.commands.rank import load_topics  # noqa: E402
from agent.models import Topic  # noqa: E402
from agent.ranking import EmbeddingCache, Ranker, build_embedder, describe_embedder  # noqa: E402
from agent.settings import Settings  # noqa: E402

ROOT = devsets.ROOT


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def recall_row(results: list[list[Any]], queries: list[dict]) -> dict[str, float]:
    r1 = r3 = rr = 0.0
    for ranked, q in zip(results, queries, strict=True):
        ids = [r.id for r in ranked]
        rank = next((k + 1 for k, i in enumerate(ids) if i in set(q["relevant"])), None)
        if rank is not None:
            r1 += rank == 1
            r3 += rank <= 3
            rr += 1.0 / rank
    n = max(len(queries), 1)
    return {"r@1": r1 / n, "r@3": r3 / n, "mrr": rr / n, "n": len(queries)}


def pick(items: list[Any], split: str, limit: int | None) -> list[Any]:
    chosen = [items[i] for i in devsets.split(len(items), split)]
    return chosen[:limit] if limit else chosen


def offline(args: argparse.Namespace, settings: Settings) -> int:
    emb = build_embedder(settings, args.embedder)
    cache = EmbeddingCache.for_settings(settings)
    tmp = Path(tempfile.mkdtemp(prefix="tl-eval-"))
    print(f"embedder: {describe_embedder(emb)}\n")
    print("| set | lang | channel | recall@1 | recall@3 | MRR | n |\n|---|---|---|---|---|---|---|")
    for lang in args.langs:
        if args.sets:
            entries = load_topics(args.sets / lang / "topics.json")
            queries = [json.loads(x) for x in (args.sets / lang / "queries.jsonl").read_text().splitlines() if x]
            queries = [q for q in queries if q.get("relevant")]
            label = f"{args.sets.name} (synthetic)"
        else:
            rel, _ = devsets.load(args.devsets)
            entries = devsets.entries(rel[lang]["topics"], tmp)
            queries = pick(rel[lang]["queries"], args.split, args.limit)
            label = f"devsets/{args.split}"
        ranker = Ranker(emb, entries, cache=cache)
        for channel in args.channels:
            if emb is None and channel != "lexical":
                continue
            t0 = time.perf_counter()
            results = ranker.rank_many_sync([q["text"] for q in queries], top_k=10, channels=channel)
            m = recall_row(results, queries)
            print(f"| {label} | {lang} | {channel} | {m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} | {m['n']} |",
                  flush=True)
            print(f"  ({time.perf_counter() - t0:.1f}s)", file=sys.stderr)
    return 0


def parse_heat(text: Any) -> float | None:
    """Zhihu prints heat as "610 万热度"; 万 = 10^4."""
    m = re.match(r"\s*([\d.]+)\s*(万|亿)?", str(text or ""))
    if not m:
        return None
    return float(m.group(1)) * {"万": 1e4, "亿": 1e8}.get(m.group(2) or "", 1.0)


async def live(args: argparse.Namespace, settings: Settings) -> int:
    import httpx

    from agent.api import create_app
    from agent.runtime import Runtime

    key = "eval-key"
    data_dir = Path(tempfile.mkdtemp(prefix="tl-live-"))
    cached = Path(settings.data_dir) / "embeddings.sqlite3"
    if cached.exists():  # topic vectors this checkout already computed: the service would have them too
        shutil.copy(cached, data_dir / "embeddings.sqlite3")
    settings = settings.model_copy(update={"offline": True, "api_keys": key, "data_dir": data_dir,
                                           "rate_limit_per_s": 100000.0, "rate_limit_burst": 100000})
    rel, chat = devsets.load(args.devsets)
    topics = [Topic(source=t["source"], item_id=t["id"], ref=t["id"], title=t["title"], lang=lang,
                    heat=parse_heat(t.get("heat")), heat_text=t.get("heat"), url=t.get("url"))
              for lang in ("zh", "en") for t in rel[lang]["topics"]]
    embedder: Any = "settings" if args.embedder is None else build_embedder(settings, args.embedder)
    runtime = Runtime.build(settings, embedder=embedder)
    runtime.store.ingest(topics)
    await runtime.start()
    app = create_app(settings, runtime=runtime, schedule=False, announce_key=False, start_runtime=False)
    headers = {"Authorization": f"Bearer {key}"}
    rows = []
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://eval",
                                 headers=headers, timeout=60) as http:

        async def say(text: str) -> tuple[dict, float]:
            s = (await http.post("/v1/sessions", json={"profile": args.profile})).json()
            t0 = time.perf_counter()
            r = await http.post(f"/v1/sessions/{s['id']}/utterances", json={"text": text, "final": True})
            elapsed = (time.perf_counter() - t0) * 1000
            if r.status_code != 200:
                raise SystemExit(f"utterance failed: {r.status_code} {r.text}")
            return r.json(), elapsed

        for lang in args.langs:
            mentions = pick(rel[lang]["queries"], args.split, args.limit)
            lines = pick(chat[lang], args.split, args.limit)
            right = wrong = 0
            lat: list[float] = []
            for q in mentions:
                out, ms = await say(q["text"])
                lat.append(ms)
                d = out.get("decision") or {}
                if d.get("show"):
                    want = {runtime.story_key(r) for r in q["relevant"]}
                    if d["topic_id"] in q["relevant"] or runtime.story_key(d["topic_id"]) in want:
                        right += 1
                    else:
                        wrong += 1
            chatty = 0
            for line in lines:
                out, ms = await say(line)
                lat.append(ms)
                chatty += bool((out.get("decision") or {}).get("show"))
            rows.append({"lang": lang, "mentions": len(mentions), "right": right / max(len(mentions), 1),
                         "wrong": wrong / max(len(mentions), 1), "small_talk": len(lines),
                         "small_talk_captioned": chatty / max(len(lines), 1), "p50_ms": pct(lat, 0.5),
                         "p99_ms": pct(lat, 0.99)})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    topics_n = len(runtime.ranker) if runtime.ranker else 0
    await runtime.aclose()
    print(f"live: {topics_n} topics indexed (both languages), profile {args.profile}, split {args.split}, "
          f"model {runtime.model_name}\n")
    print("| lang | mentions | right caption | wrong caption | small-talk lines | small talk captioned "
          "| decision p50 ms | p99 ms |\n|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['lang']} | {r['mentions']} | {r['right']:.3f} | {r['wrong']:.3f} | {r['small_talk']} "
              f"| {r['small_talk_captioned']:.3f} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devsets", type=Path, default=devsets.DEVSETS)
    ap.add_argument("--sets", type=Path, default=None, help="a <dir>/<lang>/{topics.json,queries.jsonl} set instead")
    ap.add_argument("--langs", nargs="+", default=["zh", "en"])
    ap.add_argument("--split", choices=["report", "tune", "all"], default="report")
    ap.add_argument("--limit", type=int, default=None, help="first N items of the split per language")
    ap.add_argument("--channels", nargs="+", default=["lexical", "dense", "hybrid"])
    ap.add_argument("--embedder", default=None, help="default: settings.embedder")
    ap.add_argument("--live", action="store_true", help="replay through a real session (see above)")
    ap.add_argument("--profile", default="even-g1", help="live mode: the glasses profile of each session")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    settings = Settings()
    if args.live:
        return asyncio.run(live(args, settings))
    return offline(args, settings)


if __name__ == "__main__":
    sys.exit(main())
