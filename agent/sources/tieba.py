"""Baidu Tieba (百度贴吧) hot topics: `data.bang_topic.topic_list[]` in an errno/errmsg envelope."""

from __future__ import annotations

from urllib.parse import quote

from ..errors import ParseError
from ..models import Topic
from .base import Endpoint, Source, check_envelope, dig, load_json


class Tieba(Source):
    name = "tieba"
    title = "百度贴吧 热议榜"
    lang = "zh"
    interval_s = 600
    domains = ("tieba.baidu.com",)
    replay = "topic-list.json"

    def endpoints(self) -> list[Endpoint]:
        return [Endpoint("https://tieba.baidu.com/hottopic/browse/topicList",
                         headers={"Referer": "https://tieba.baidu.com/"})]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        data = load_json(self.name, body, url)
        if not isinstance(data, dict):
            raise ParseError(self.name, "expected a JSON object with 'data.bang_topic.topic_list'", url=url)
        check_envelope(self.name, data, url, code_key="errno", ok=(0, "0"))
        items = dig(self.name, data, "data.bang_topic.topic_list", url)
        if not isinstance(items, list):
            raise ParseError(self.name, "'data.bang_topic.topic_list' is not a list", url=url)
        topics: list[Topic] = []
        for item in items:
            if not isinstance(item, dict) or item.get("is_ad"):
                continue
            name = str(item.get("topic_name") or "").strip()
            if not name:
                continue
            topic_id = item.get("topic_id")
            link: str | None = str(item.get("topic_url") or "").replace("&amp;", "&")
            if not self.link_allowed(link):
                link = (f"https://tieba.baidu.com/hottopic/browse/hottopic?topic_id={topic_id}"
                        f"&topic_name={quote(name)}") if topic_id else None
            discuss = item.get("discuss_num")
            desc = str(item.get("topic_desc") or item.get("abstract") or "").strip()
            idx = item.get("idx_num")
            topics.append(self.topic(
                item_id=topic_id,
                title=name,
                summary=desc[:280] or None,
                rank=idx if isinstance(idx, int) and idx > 0 else len(topics) + 1,
                heat=discuss,
                heat_text=f"{discuss} 讨论" if discuss is not None else None,
                url=link,
                extra={"created": item.get("create_time"), "content_num": item.get("content_num"),
                       "tag": item.get("tag")},
            ))
        if items and not topics:
            raise ParseError(self.name, "no item in the topic list had a 'topic_name'", url=url)
        return topics
