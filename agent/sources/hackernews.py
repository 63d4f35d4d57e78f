"""Hacker News front page: Firebase top-story ids then items, else the Algolia front page.

Shapes `parse` tells apart by content:
  Algolia search  `{"hits": [{"objectID", "title", "url", "points", "num_comments"}]}` -> the stories
  Firebase item   `{"id", "type": "story", "title", "url", "score", "descendants"}`    -> one story
  Firebase ids    `[30714121, 30710574, ...]` -> ParseError: an id list carries no titles

HN stories link to arbitrary sites, so `url` is always the HN discussion page
(`https://news.ycombinator.com/item?id=<id>`, on the source's domain) and the
story's own link, wherever it points, is kept in `extra["link"]`.
"""

from __future__ import annotations

import asyncio
import html
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ..errors import ParseError, SourceError
from ..models import Topic
from ..resources import snapshot_dir
from .base import Endpoint, Source, SourceOptions, _combine, load_json

if TYPE_CHECKING:
    import httpx

    from ..settings import Settings
    from .fetcher import Fetcher

FIREBASE = "https://hacker-news.firebaseio.com/v0"
ALGOLIA_URL = "https://hn.algolia.com/api/v1/search?tags=front_page"
TOP_N = 30
_ITEM_PATH = re.compile(r"/v0/item/(\d+)\.json$")
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True, kw_only=True)
class HackerNewsOptions(SourceOptions):
    # TRENDLENS_SNAPSHOT_DIR: replaying, an item the snapshot lacks is no request worth answering
    snapshot_dir: Path | None = None

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), snapshot_dir=settings.fetch.snapshot_dir)


class HackerNews(Source):
    name = "hackernews"
    title = "Hacker News"
    lang = "en"
    interval_s = 600
    domains = ("news.ycombinator.com", "ycombinator.com")
    replay = "front_page.json"
    options_type = HackerNewsOptions
    options: HackerNewsOptions

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint(f"{FIREBASE}/topstories.json", "firebase"), Endpoint(ALGOLIA_URL, "algolia")]

    async def fetch(self, http: Fetcher) -> list[Topic]:
        failures: list[SourceError] = []
        try:
            return await self._firebase(http)
        except SourceError as exc:
            failures.append(exc)
        try:
            return self.parse_body(await http.get(self.name, ALGOLIA_URL), url=ALGOLIA_URL)
        except SourceError as exc:
            failures.append(exc)
        raise _combine(self.name, failures)

    async def _firebase(self, http: Fetcher) -> list[Topic]:
        url = f"{FIREBASE}/topstories.json"
        ids = load_json(self.name, await http.get(self.name, url), url)
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise ParseError(self.name, "topstories.json is not a list of ids", url=url)

        async def item(story_id: int) -> list[Topic]:
            item_url = f"{FIREBASE}/item/{story_id}.json"
            return self.parse_body(await http.get(self.name, item_url), url=item_url)

        results = await asyncio.gather(*(item(i) for i in ids[:TOP_N]), return_exceptions=True)
        stories = [t for r in results if isinstance(r, list) for t in r]  # a failed item is skipped
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, SourceError):
                raise result
        if ids and not stories:
            first = next((r for r in results if isinstance(r, SourceError)), None)
            raise ParseError(self.name, f"none of the top {len(results)} items could be read"
                             + (f" ({first.message})" if first else ""), url=url)
        return [t.model_copy(update={"rank": n}) for n, t in enumerate(stories, 1)]

    def replay_case(self, request: httpx.Request) -> str | None:
        path = request.url.path
        if path.endswith("/topstories.json"):
            return "topstories.json"
        match = _ITEM_PATH.search(path)
        if match:
            name = f"item-{match.group(1)}.json"
            return name if (snapshot_dir(self.options.snapshot_dir) / self.name / name).exists() else None
        return self.replay

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if isinstance(data, list) and all(isinstance(i, int) for i in data):
            raise ParseError(self.name, "an id list has no titles; fetch items (/v0/item/<id>.json)", url=url)
        if data is None:
            raise ParseError(self.name, "item not found (the API answered null)", url=url)
        if isinstance(data, dict) and isinstance(data.get("hits"), list):
            topics: list[Topic] = []
            for hit in data["hits"]:
                if isinstance(hit, dict) and hit.get("title") and hit.get("objectID"):
                    topics.append(self._story(hit["objectID"], hit, rank=len(topics) + 1,
                                              score=hit.get("points"), comments=hit.get("num_comments"),
                                              text=hit.get("story_text")))
            if data["hits"] and not topics:
                raise ParseError(self.name, "no Algolia hit had an 'objectID' and a 'title'", url=url)
            return topics
        if isinstance(data, dict) and "id" in data and "type" in data:
            if data.get("deleted") or data.get("dead"):
                return []
            if data["type"] not in ("story", "job", "poll") or not data.get("title"):
                raise ParseError(self.name, f"item {data['id']} is a {data['type']!r} without a title, "
                                 "not a story", url=url)
            return [self._story(data["id"], data, rank=1, score=data.get("score"),
                                comments=data.get("descendants"), text=data.get("text"))]
        raise ParseError(self.name, "expected Algolia 'hits', a Firebase item or an id list", url=url)

    def _story(self, story_id: Any, item: dict[str, Any], *, rank: int, score: Any, comments: Any,
               text: Any) -> Topic:
        discussion = f"https://news.ycombinator.com/item?id={story_id}"
        summary = html.unescape(_TAG.sub(" ", str(text or ""))).strip()
        return self.topic(
            item_id=story_id,
            title=str(item["title"]),
            summary=" ".join(summary.split())[:280] or None,
            rank=rank,
            heat=score,
            heat_text=f"{score} points" if score is not None else None,
            url=discussion,
            extra={"link": item.get("url") or discussion, "comments": comments,
                   "by": item.get("by") or item.get("author"),
                   "time": item.get("time") or item.get("created_at_i")},
        )
