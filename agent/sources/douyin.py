"""Douyin (抖音) hot search: the web list (needs a cookie), else the app API.

Both answer the same envelope: `status_code` (0 = ok) and `data.word_list[]`
(`word`, `hot_value`, `position`, `sentence_id`, `label`, `view_count`,
`event_time`). The app API adds `data.trending_list[]` (实时上升热点, rising
topics without heat of their own), kept after the ranked list with rank None.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote

import httpx

from ..errors import FetchError, ParseError, SourceError, UpstreamError
from ..models import Topic
from .base import Endpoint, Source, SourceOptions, _combine, check_envelope, dig, load_json

if TYPE_CHECKING:
    from ..settings import Settings
    from .fetcher import Fetcher

WEB_URL = ("https://www.douyin.com/aweme/v1/web/hot/search/list/"
           "?device_platform=webapp&aid=6383&channel=channel_pc_web&detail_list=1")
APP_URL = ("https://aweme.snssdk.com/aweme/v1/hot/search/list/"
           "?device_platform=android&version_name=13.2.0&version_code=130200&aid=1128")
COOKIE_URL = "https://login.douyin.com/"


@dataclass(frozen=True, kw_only=True)
class DouyinOptions(SourceOptions):
    cookie: str | None = None  # TRENDLENS_DOUYIN_COOKIE; else a visitor cookie is fetched

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), cookie=settings.platforms.douyin_cookie)


class Douyin(Source):
    name = "douyin"
    title = "抖音热榜"
    lang = "zh"
    interval_s = 300
    domains = ("douyin.com",)
    replay = "hot-search.json"

    options_type = DouyinOptions
    options: DouyinOptions

    def __init__(self, options: DouyinOptions | None = None) -> None:
        super().__init__(options)
        self._visitor_cookie: str | None = None

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint(WEB_URL, "web", {"Referer": "https://www.douyin.com/hot"}),
            Endpoint(APP_URL, "app"),
        ]

    async def fetch(self, http: Fetcher) -> list[Topic]:
        failures: list[SourceError] = []
        for endpoint in self.endpoints():
            try:
                headers = dict(endpoint.headers)
                if endpoint.name == "web":
                    cookie = await self._cookie(http)
                    if cookie:
                        headers["Cookie"] = cookie
                body = await http.get(self.name, endpoint.url, headers=headers)
                return self.parse_body(body, url=endpoint.url)
            except SourceError as exc:
                failures.append(exc)
        raise _combine(self.name, failures)

    async def _cookie(self, http: Fetcher) -> str | None:
        """TRENDLENS_DOUYIN_COOKIE, else the visitor cookies login.douyin.com sets (cached)."""
        if self.options.cookie:
            return self.options.cookie
        if self._visitor_cookie is None:
            try:
                async with http.client.stream("GET", COOKIE_URL, timeout=http.policy.timeout_s) as response:
                    pairs = [c.split(";", 1)[0].strip() for c in response.headers.get_list("set-cookie")]
            except httpx.HTTPError as exc:
                raise FetchError(self.name, f"could not get a visitor cookie ({type(exc).__name__})",
                                 url=COOKIE_URL) from None
            self._visitor_cookie = "; ".join(p for p in pairs if "=" in p) or None
        return self._visitor_cookie

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object with 'data.word_list'", url=url)
        check_envelope(self.name, data, url, code_key="status_code", ok=(0,),
                       message_keys=("status_msg", "message", "msg"))
        words = dig(self.name, data, "data.word_list", url)
        if not isinstance(words, list):
            raise ParseError(self.name, "'data.word_list' is not a list", url=url)
        if not words:
            # the web list answers an empty list instead of an error when the cookie is missing
            raise UpstreamError(self.name, "empty data.word_list (cookie missing or rejected?)", url=url)
        topics: list[Topic] = []
        seen: set[str] = set()
        for item in words:
            topic = self._item(item, rank=len(topics) + 1, rising=False)
            if topic and topic.item_id not in seen:
                seen.add(topic.item_id)
                topics.append(topic)
        if not topics:
            raise ParseError(self.name, "no item in data.word_list had a 'word'", url=url)
        for item in data["data"].get("trending_list") or []:
            topic = self._item(item, rank=None, rising=True)
            if topic and topic.item_id not in seen:
                seen.add(topic.item_id)
                topics.append(topic)
        return topics

    def _item(self, item: Any, *, rank: int | None, rising: bool) -> Topic | None:
        if not isinstance(item, dict) or not str(item.get("word") or "").strip():
            return None
        if item.get("is_ad") or item.get("ad_info"):
            return None
        word = str(item["word"])
        sentence_id = item.get("sentence_id")
        hot_value = item.get("hot_value")
        position = item.get("position")
        if not rising and isinstance(position, int) and position > 0:
            rank = position
        return self.topic(
            item_id=sentence_id,
            title=word,
            rank=rank,
            heat=hot_value if hot_value else None,
            heat_text=str(hot_value) if hot_value else None,
            url=(f"https://www.douyin.com/hot/{sentence_id}" if sentence_id
                 else f"https://www.douyin.com/search/{quote(word)}"),
            extra={"label": item.get("label"), "view_count": item.get("view_count"),
                   "event_time": item.get("event_time"), "rising": rising},
        )
