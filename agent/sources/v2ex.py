"""V2EX hot topics (Chinese developer community): a plain JSON array."""

from __future__ import annotations

from ..errors import ParseError
from ..models import Topic
from .base import Endpoint, Source, load_json


class V2ex(Source):
    name = "v2ex"
    title = "V2EX 最热主题"
    lang = "zh"
    interval_s = 1800
    domains = ("v2ex.com",)
    replay = "hot.json"

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("https://www.v2ex.com/api/topics/hot.json")]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, list):
            # v2ex answers errors as {"message": ...} objects
            message = data.get("message") if isinstance(data, dict) else None
            raise ParseError(self.name, f"expected a JSON array of topics{f' (got: {message})' if message else ''}",
                             url=url)
        topics: list[Topic] = []
        for item in data:
            if not isinstance(item, dict) or not item.get("title"):
                continue
            node = item.get("node") or {}
            topics.append(self.topic(
                item_id=item.get("id"),
                title=str(item["title"]),
                summary=(str(item.get("content") or "").strip()[:280] or None),
                rank=len(topics) + 1,
                heat=item.get("replies"),
                heat_text=f"{item.get('replies', 0)} 回复",
                url=item.get("url") or (f"https://www.v2ex.com/t/{item['id']}" if item.get("id") else None),
                extra={"node": node.get("title"), "created": item.get("created")},
            ))
        if data and not topics:
            raise ParseError(self.name, "no item had a 'title'", url=url)
        return topics
