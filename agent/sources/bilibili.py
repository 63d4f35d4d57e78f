"""Bilibili (哔哩哔哩): hot search words and popular videos, fetched together and merged.

Two lists, two shapes, one parser that tells them apart by content:
  hot words       `{"code": 0, "list": [{"keyword", "show_name", "heat_score", "pos"}]}`
  popular videos  `{"code": 0, "data": {"list": [{"bvid", "title", "stat": {"view"}, "owner", "desc"}]}}`
Item ids are prefixed `w:` / `v:` so a word and a video never collide. If one
list fails the other still yields; code -352/-412 is risk control (blocked).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from ..errors import BlockedError, ParseError, SourceError
from ..models import Topic
from .base import Endpoint, Source, _combine, check_envelope, load_json

if TYPE_CHECKING:
    import httpx

    from .fetcher import Fetcher

HOTWORD_URL = "https://s.search.bilibili.com/main/hotword?limit=30"
POPULAR_URL = "https://api.bilibili.com/x/web-interface/popular"
_RISK_CODES = {-352: "risk control", -412: "request intercepted"}


class Bilibili(Source):
    name = "bilibili"
    title = "哔哩哔哩 热搜与热门"
    lang = "zh"
    interval_s = 600
    domains = ("bilibili.com",)
    replay = "popular.json"

    def endpoints(self) -> list[Endpoint]:
        headers = {"Referer": "https://www.bilibili.com/"}
        return [Endpoint(HOTWORD_URL, "hotword", headers), Endpoint(POPULAR_URL, "popular", headers)]

    async def fetch(self, http: Fetcher) -> list[Topic]:
        """Both lists concurrently; words first, then videos. Fails only when both fail."""

        async def one(endpoint: Endpoint) -> list[Topic]:
            body = await http.get(self.name, endpoint.url, headers=endpoint.headers)
            return self.parse_body(body, url=endpoint.url)

        results = await asyncio.gather(*(one(e) for e in self.endpoints()), return_exceptions=True)
        topics: list[Topic] = []
        failures: list[SourceError] = []
        for result in results:
            if isinstance(result, SourceError):
                failures.append(result)
            elif isinstance(result, BaseException):
                raise result
            else:
                topics.extend(result)
        if failures and len(failures) == len(results):
            raise _combine(self.name, failures)
        return topics

    def replay_case(self, request: httpx.Request) -> str | None:
        return "hotword.json" if request.url.host == urlsplit(HOTWORD_URL).hostname else self.replay

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object with 'list' (words) or 'data.list' (videos)",
                             url=url)
        code = data.get("code")
        if code in _RISK_CODES:
            raise BlockedError(self.name, f"{_RISK_CODES[code]} (code {code}); a browser cookie may help",
                               url=url)
        check_envelope(self.name, data, url, code_key="code", ok=(0, "0"))
        if isinstance(data.get("list"), list):
            return self._words(data["list"])
        inner = data.get("data")
        if isinstance(inner, dict) and isinstance(inner.get("list"), list):
            return self._videos(inner["list"], url)
        raise ParseError(self.name, "missing 'list' (hot words) and 'data.list' (popular videos)", url=url)

    def _words(self, items: list[Any]) -> list[Topic]:
        topics: list[Topic] = []
        for item in items:
            if not isinstance(item, dict) or item.get("is_ad"):
                continue
            keyword = str(item.get("keyword") or item.get("show_name") or "").strip()
            if not keyword:
                continue
            pos = item.get("pos")
            topics.append(self.topic(
                item_id=f"w:{keyword}",
                title=str(item.get("show_name") or keyword),
                rank=pos if isinstance(pos, int) and pos > 0 else len(topics) + 1,
                heat_text=str(item["heat_score"]) if item.get("heat_score") is not None else None,
                url=f"https://search.bilibili.com/all?keyword={quote(keyword)}",
                extra={"list": "hotword", "keyword": keyword},
            ))
        return topics

    def _videos(self, items: list[Any], url: str | None) -> list[Topic]:
        topics: list[Topic] = []
        for item in items:
            if not isinstance(item, dict) or item.get("is_ad") or not item.get("title"):
                continue
            bvid = item.get("bvid")
            if not bvid:
                raise ParseError(self.name, "a popular video has no 'bvid'", url=url)
            stat = item.get("stat") or {}
            owner = item.get("owner") or {}
            views = stat.get("view")
            desc = str(item.get("desc") or "").strip()
            topics.append(self.topic(
                item_id=f"v:{bvid}",
                title=str(item["title"]),
                summary=desc[:280] if desc and desc != "-" else None,
                rank=len(topics) + 1,
                heat=views,
                heat_text=f"{views} 播放" if views is not None else None,
                url=f"https://www.bilibili.com/video/{bvid}",
                extra={"list": "popular", "owner": owner.get("name"), "pubdate": item.get("pubdate"),
                       "reason": (item.get("rcmd_reason") or {}).get("content") or None},
            ))
        return topics
