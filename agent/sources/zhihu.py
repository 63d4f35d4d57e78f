"""Zhihu hot list (知乎热榜): the hot-lists JSON API, falling back to the topsearch page."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser

from ..errors import BlockedError, ParseError, UpstreamError
from ..models import Topic
from .base import Endpoint, Source, decode_text, dig, ensure_not_blocked, load_json

_QUESTION = re.compile(r"/question/(\d+)")


class Zhihu(Source):
    name = "zhihu"
    title = "知乎热榜"
    lang = "zh"
    interval_s = 300
    domains = ("zhihu.com",)
    replay = "hot-lists.json"

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint("https://www.zhihu.com/api/v3/feed/topstory/hot-lists/total?limit=50", "hot-lists",
                     {"Referer": "https://www.zhihu.com/hot", "Accept": "application/json"}),
            Endpoint("https://www.zhihu.com/topsearch", "topsearch", {"Referer": "https://www.zhihu.com/"}),
        ]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        text = decode_text(body).lstrip()
        if text.startswith("<"):
            return self._parse_topsearch(text, url)
        data = load_json(self.name, text, url)
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            err = data["error"]
            if err.get("code") == 40352 or "unhuman" in str(err.get("redirect") or ""):
                raise BlockedError(self.name, f"blocked by the platform (risk control {err.get('code')!r}: "
                                              f"{err.get('message', '')})", url=url)
            detail = err.get("message", "")
            raise UpstreamError(self.name, f"platform error code={err.get('code')!r}: {detail}", url=url)
        items = dig(self.name, data, "data", url)
        if not isinstance(items, list):
            raise ParseError(self.name, "'data' is not a list of hot items", url=url)
        return self._parse_hot_list(items, url)

    def _parse_hot_list(self, items: list[Any], url: str | None) -> list[Topic]:
        topics: list[Topic] = []
        for item in items:
            target = item.get("target") if isinstance(item, dict) else None
            if not isinstance(target, dict) or item.get("type") not in (None, "hot_list_feed"):
                continue  # ads and banners use other feed types
            title = (target.get("title_area") or {}).get("text") or target.get("title")
            if not title:
                continue
            link = (target.get("link") or {}).get("url") or target.get("url") or ""
            match = _QUESTION.search(link)
            qid = match.group(1) if match else (str(target.get("id") or "") or None)
            if not self.link_allowed(link):
                link = f"https://www.zhihu.com/question/{qid}" if qid else None
            heat_text = (target.get("metrics_area") or {}).get("text") or item.get("detail_text")
            summary = (target.get("excerpt_area") or {}).get("text") or target.get("excerpt")
            topics.append(self.topic(
                item_id=qid, title=str(title), summary=str(summary).strip()[:280] if summary else None,
                rank=len(topics) + 1, heat_text=heat_text, url=link,
                extra={"answers": (item.get("feed_specific") or {}).get("answer_count"),
                       "label": (item.get("card_label") or {}).get("type")},
            ))
        if items and not topics:
            raise ParseError(self.name, "no item in 'data' had 'target.title_area.text'", url=url)
        return topics

    def _parse_topsearch(self, text: str, url: str | None) -> list[Topic]:
        # a real topsearch page mentions "captcha" in its config, so look for the data before the wall
        script = LexborHTMLParser(text).css_first("script#js-initialData")
        if script is None:
            ensure_not_blocked(self.name, text, url)
            raise ParseError(self.name, "no 'script#js-initialData' in the topsearch page", url=url)
        try:
            state = json.loads(script.text())
        except json.JSONDecodeError as exc:
            raise ParseError(self.name, f"malformed js-initialData JSON ({exc.msg})", url=url) from None
        items = dig(self.name, state, "initialState.topsearch.data", url)
        if not isinstance(items, list):
            raise ParseError(self.name, "'initialState.topsearch.data' is not a list", url=url)
        topics: list[Topic] = []
        for item in items:
            if not isinstance(item, dict) or not (item.get("queryDisplay") or item.get("realQuery")):
                continue
            query = str(item.get("realQuery") or item["queryDisplay"])
            link = str(item.get("redirectLink") or "")
            if not self.link_allowed(link):
                link = f"https://www.zhihu.com/search?type=content&q={quote(query, safe='')}"
            # topsearch gives no heat figure; `status` is an internal counter, not heat
            topics.append(self.topic(
                item_id=None, title=str(item.get("queryDisplay") or query), rank=len(topics) + 1, url=link,
                summary=str(item.get("queryDescription") or "").strip() or None,
                extra={"new": bool(item.get("isNew"))},
            ))
        return topics
