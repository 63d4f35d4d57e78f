"""The three labelled story days in ../shared, parsed by the project's own parsers (read in place).

`../shared/devsets/stories-<day>.json` labels which items of one day are one story; the complete
lists it was made from are `../shared/days/<day>/<source>/`, one recording each (`recording`). Every
list is parsed whole, as the service would store it (Douyin's rising items included); the labelled items are then found
among the parsed topics by id, else by title.

Passage vectors are cached in the persistent embedding cache under `<model>#passage`, so a
second run costs no model time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agent.models import Topic
from agent.ranking import Embedder, EmbeddingCache
from agent.ranking.snapshot import doc_text
from agent.settings import Settings
from agent.sources import REGISTRY, source_class
from harness.paths import SHARED

if TYPE_CHECKING:
    from agent.index.story_rank import StoryRanking
    from agent.ranking import Ranker

DAYS = ("2025-03-31", "2025-04-01", "2025-04-15")
# The Gala night: its labels are the meme groups of the festival dev set (one group, one meme),
# and every item of its lists is clustered, as the service holds them; items outside every group
# are unlabelled (`Day.labelled`), not one-item stories.
FESTIVAL = "2024-02-09"
FESTIVALS = (FESTIVAL, "2026-02-16")  # every festival night labelled by meme groups (festival-<day>.json)


@dataclass(frozen=True)
class Day:
    day: str
    labels: dict[str, Any]
    topics: list[Topic]  # the labelled items, in label order, with the labelled id as their id
    lists: dict[str, list[Topic]]  # every parsed list of the day, whole
    missing: list[str]  # labelled ids no parser produced
    labelled: frozenset[str] | None = None  # the ids the labels speak of, when not every topic (the festival night)


def _norm(title: str) -> str:
    return " ".join(title.split())


class NightError(ValueError):
    """A day's folder is not in the shared format: a one-line reason naming the folder."""


#: What a source's folder may hold beside its recording: notes on where it came from
_NOTES = ("README", "PROVENANCE", "SOURCES")


def recording(folder: Path) -> Path:
    """The one recording of a source's folder, in whatever shape its recorder saved (Weibo's and Zhihu's
    pages are HTML, their APIs JSON; each parser reads every shape its source answers in), beside any notes."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and not p.name.upper().startswith(_NOTES) and p.suffix.lower() != ".md")
    if len(files) != 1:
        found = ", ".join(p.name for p in files) or "none"
        raise NightError(f"{folder}: expected one recorded list, found {len(files)} ({found})")
    return files[0]


def source_folders(day_dir: Path) -> list[str]:
    """The sources a day holds a list of: its folders, each named for a registered source."""
    names = sorted(p.name for p in day_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise NightError(f"{day_dir}: no source is named {', '.join(unknown)} (known: {', '.join(sorted(REGISTRY))})")
    return names


def held(lists: dict[str, list[Topic]]) -> list[Topic]:
    """Every topic of a day's lists once (an item two lists carry keeps its first), as the service holds them."""
    return list({t.id: t for ts in lists.values() for t in ts}.values())


def parse_lists(day: str, shared: Path,
                settings: Settings | None = None) -> tuple[dict[str, list[Topic]], dict[tuple[str, str], Topic]]:
    settings = settings or Settings()
    lists: dict[str, list[Topic]] = {}
    parsed: dict[tuple[str, str], Topic] = {}
    day_dir = shared / "days" / day
    for name in source_folders(day_dir):
        folder = day_dir / name
        topics = source_class(name).from_settings(settings).parse_body(recording(folder).read_bytes(), url=None)
        lists[name] = topics
        for t in topics:
            parsed.setdefault((t.source, t.item_id), t)
            parsed.setdefault((t.source, "title:" + _norm(t.title)), t)
    return lists, parsed


def load_festival(shared: Path = SHARED, night: str = FESTIVAL) -> Day:
    """A Gala night's lists whole, labelled by the festival dev set's meme groups."""
    dev = json.loads((shared / "devsets" / f"festival-{night}.json").read_text(encoding="utf-8"))
    lists, parsed = parse_lists(night, shared)
    topics = held(lists)
    stories, items, missing = [], [], []
    for group in dev["trends"]:
        members = []
        for item in group["items"]:
            topic = parsed.get((item["source"], "title:" + _norm(item["title"])))
            if topic is None:
                missing.append(f"{item['source']}:{item['title']}")
                continue
            members.append(topic.id)
            items.append({"id": topic.id, "title": topic.title})
        stories.append({"id": group["id"], "members": members})
    labels = {"stories": stories, "items": items, "near_misses": []}
    return Day(night, labels, topics, lists, missing, frozenset(i["id"] for i in items))


def load_day(day: str, shared: Path = SHARED) -> Day:
    if day in FESTIVALS:
        return load_festival(shared, day)
    labels = json.loads((shared / "devsets" / f"stories-{day}.json").read_text(encoding="utf-8"))
    lists, parsed = parse_lists(day, shared)
    topics, missing = [], []
    for item in labels["items"]:
        source, _, key = item["id"].partition(":")
        topic = parsed.get((source, key)) or parsed.get((source, "title:" + _norm(item["title"])))
        if topic is None:
            missing.append(item["id"])
            continue
        # The labelled id is the topic's global id, so clusters and labels speak of the same items.
        topics.append(topic.model_copy(update={"ref": item["id"]}))
    return Day(day, labels, topics, lists, missing)


def passage_vectors(embedder: Embedder | None, topics: list[Topic], cache_dir: Path) -> np.ndarray | None:
    """The vectors the service gives these topics (`doc_text`, passage role), cached on disk."""
    if embedder is None or not topics:
        return None
    texts = [doc_text(t) for t in topics]
    cache = EmbeddingCache(cache_dir / "embeddings.sqlite3")
    try:
        name = f"{embedder.name}#passage"
        mat, hit = cache.get_many(name, texts, int(embedder.dim))
        missing = [i for i, h in enumerate(hit) if not h]
        if missing:
            fresh = np.asarray(embedder.encode([texts[i] for i in missing], role="passage"), dtype=np.float32)
            mat[missing] = fresh
            cache.put_many(name, [texts[i] for i in missing], fresh)
    finally:
        cache.close()
    return np.asarray(mat, dtype=np.float32)


def night_ranker(day: str, data: Path, shared: Path = SHARED) -> tuple[Ranker, StoryRanking]:
    """A ranker over a day's whole lists with the default model (vectors under `data`), and its stories' ranking:
    what a test says a line to, as the service would hold that day."""
    from agent.index.story_rank import StoryRanking
    from agent.ranking import Ranker, build_embedder

    lists, _ = parse_lists(day, shared)
    topics = held(lists)
    embedder = build_embedder(Settings(data_dir=data / "data"))
    ranker = Ranker(embedder)
    ranker.index(topics, vectors=passage_vectors(embedder, topics, data))
    return ranker, StoryRanking.grouped(ranker)
