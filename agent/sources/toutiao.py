"""Toutiao hot board (今日头条热榜): the web hot-board JSON, falling back to the app hot-board feed."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from ..errors import ParseError, UpstreamError
from ..models import Topic
from .base import Endpoint, Source, load_json


class Toutiao(Source):
    name = "toutiao"
    title = "今日头条热榜"
    lang = "zh"
    interval_s = 300
    domains = ("toutiao.com",)
    replay = "hot-board.json"

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint("https://www.toutiao.com/hot-event/hot-board/?origin=toutiao_pc", "web",
                     {"Referer": "https://www.toutiao.com/", "Accept": "application/json"}),
            Endpoint("https://i-lq.snssdk.com/api/feed/hotboard_online/v1/?category=hotboard_online&count=50",
                     "app", {"Accept": "application/json"}),
        ]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object with 'data'", url=url)
        if "errno" in data:  # app feed envelope; errno 0 is success
            if data["errno"] not in (0, "0"):
                count = len(data["data"]) if isinstance(data.get("data"), list) else 0
                raise UpstreamError(self.name, f"platform error errno={data['errno']!r} ({count} items, "
                                               f"message {data.get('message')!r})", url=url)
        elif "status" in data and data["status"] != "success":
            detail = data.get("message", "")
            raise UpstreamError(self.name, f"platform error status={data['status']!r}: {detail}", url=url)
        items = data.get("data")
        if not isinstance(items, list):
            raise ParseError(self.name, "missing 'data' list in the response", url=url)
        if any(isinstance(i, dict) and isinstance(i.get("content"), str) for i in items):
            return self._parse_app(items, url)
        return self._parse_web(items, url)

    def _link(self, cluster: str | None, title: str, given: Any = None) -> str:
        if cluster:
            return f"https://www.toutiao.com/trending/{cluster}/"
        if isinstance(given, str) and self.link_allowed(given):
            return given
        return f"https://so.toutiao.com/search?keyword={quote(title, safe='')}"

    def _parse_web(self, items: list[Any], url: str | None) -> list[Topic]:
        # pinned rows come separately in `fixed_top_data` and are not read
        topics: list[Topic] = []
        for item in items:
            if not isinstance(item, dict) or not item.get("Title"):
                continue
            if item.get("is_ad") or str(item.get("Label") or "").lower() == "ad":
                continue
            title = str(item["Title"])
            cluster = str(item.get("ClusterIdStr") or item.get("ClusterId") or "") or None
            topics.append(self.topic(
                item_id=cluster, title=title, rank=len(topics) + 1, heat_text=item.get("HotValue"),
                url=self._link(cluster, title, item.get("Url")),
                extra={k: item[k] for k in ("Label", "QueryWord", "InterestCategory") if item.get(k)},
            ))
        if items and not topics:
            raise ParseError(self.name, "no item in 'data' had a 'Title'", url=url)
        return topics

    def _parse_app(self, items: list[Any], url: str | None) -> list[Topic]:
        topics: list[Topic] = []
        for item in items:
            content = item.get("content") if isinstance(item, dict) else None
            if isinstance(content, str):  # the app feed JSON-encodes each cell
                try:
                    content = json.loads(content)
                except json.JSONDecodeError:
                    raise ParseError(self.name, "a 'data[].content' string is not valid JSON",
                                     url=url) from None
            raw = content.get("raw_data") if isinstance(content, dict) else None
            if not isinstance(raw, dict) or not raw.get("title"):
                continue  # header cells and other non-board cells
            if raw.get("is_ad") or (isinstance(content, dict) and content.get("label") == "ad"):
                continue
            title = str(raw["title"])
            cluster = str(raw.get("cluster_id") or raw.get("hot_item_id") or "") or None
            heat = raw.get("hot_value")
            topics.append(self.topic(
                item_id=cluster, title=title, rank=len(topics) + 1,
                heat=heat, heat_text=str(heat) if heat is not None else raw.get("hot_desc"),
                summary=str(raw.get("abstract") or "").strip()[:280] or None,
                url=self._link(cluster, title, raw.get("url") or raw.get("share_url")),
                extra={"label": raw["label"]} if raw.get("label") else {},
            ))
        if items and not topics:
            raise ParseError(self.name, "no 'data[].content' held 'raw_data.title'", url=url)
        return topics
