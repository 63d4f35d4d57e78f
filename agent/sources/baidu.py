"""Baidu realtime hot search (百度热搜): the board JSON API, falling back to the board page's s-data block."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from ..errors import ParseError, UpstreamError
from ..models import Topic
from .base import Endpoint, Source, decode_text, dig, ensure_not_blocked, load_json

# The board page embeds its state as an HTML comment: <!--s-data:{...}-->
_S_DATA = re.compile(r"<!--s-data:(.*?)-->", re.S)


class Baidu(Source):
    name = "baidu"
    title = "百度热搜"
    lang = "zh"
    interval_s = 300
    domains = ("baidu.com",)
    replay = "board-realtime.json"

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint("https://top.baidu.com/api/board?platform=web&tab=realtime", "api",
                     {"Referer": "https://top.baidu.com/board?tab=realtime", "Accept": "application/json"}),
            Endpoint("https://top.baidu.com/board?tab=realtime", "page", {"Referer": "https://top.baidu.com/"}),
        ]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        text = decode_text(body).lstrip()
        if text.startswith("<"):
            match = _S_DATA.search(text)
            if match is None:
                ensure_not_blocked(self.name, text, url)
                raise ParseError(self.name, "no '<!--s-data:...-->' block in the board page", url=url)
            try:
                data = json.loads(match.group(1))
            except json.JSONDecodeError as exc:
                raise ParseError(self.name, f"malformed s-data JSON ({exc.msg})", url=url) from None
        else:
            data = load_json(self.name, text, url)
        if isinstance(data, dict) and data.get("success") is False:
            error = data.get("error") or {}
            detail = error.get("message", "") if isinstance(error, dict) else str(error)
            code = error.get("code") if isinstance(error, dict) else None
            raise UpstreamError(self.name, f"platform error success=false (code={code!r}): {detail}", url=url)
        content = dig(self.name, data, "data.cards.0.content", url)
        if not isinstance(content, list):
            raise ParseError(self.name, "'data.cards.0.content' is not a list", url=url)
        return self._items(_flatten(content), url)

    def _items(self, items: list[Any], url: str | None) -> list[Topic]:
        topics: list[Topic] = []
        for item in items:
            if not isinstance(item, dict) or item.get("isTop"):
                continue  # pinned rows ("置顶") are editorial, not ranked
            word = item.get("word") or item.get("query")
            if not word:
                continue
            link = item.get("url") or item.get("rawUrl") or item.get("appUrl")
            if not self.link_allowed(link):
                link = f"https://www.baidu.com/s?wd={quote(str(word), safe='')}"
            desc = str(item.get("desc") or "").strip()
            topics.append(self.topic(
                item_id=None, title=str(word), summary=desc[:280] or None, rank=len(topics) + 1,
                heat_text=item.get("hotScore"), url=link,
                extra={k: item[k] for k in ("hotTag", "hotChange") if item.get(k) not in (None, "")},
            ))
        if items and not topics:
            raise ParseError(self.name, "no item in 'data.cards.0.content' had a 'word'", url=url)
        return topics


def _flatten(content: list[Any]) -> list[Any]:
    """The page variant nests the list once more: content[0].content[]."""
    items: list[Any] = []
    for entry in content:
        if isinstance(entry, dict) and isinstance(entry.get("content"), list) and not entry.get("word"):
            items.extend(entry["content"])
        else:
            items.append(entry)
    return items
