"""Weibo hot search (微博热搜): the web JSON, the mobile container API and the s.weibo.com page.

The mobile API's answer holds more than the ranked board (`data.cards[0]`): the cards after it are
the rising topics (实时上升热点, about twenty, no heat of their own) and the entertainment board (文娱热搜,
about ten, with heat), which on a festival night carry memes the ranked board has not reached yet. They
are kept after the ranked rows with neither rank nor heat (their place is on another board, `extra["board"]`),
as Douyin keeps its rising list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import parse_qs, quote, urlsplit

from selectolax.lexbor import LexborHTMLParser

from ..errors import ParseError
from ..models import Topic
from .base import Endpoint, Source, SourceOptions, check_envelope, decode_text, dig, ensure_not_blocked, load_json

if TYPE_CHECKING:
    from ..settings import Settings

_MOBILE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
              "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")
_CONTAINER = "106003type%3D25%26t%3D3%26disable_hot%3D1%26filter_type%3Drealtimehot"
_SEARCH = "https://s.weibo.com/weibo?q="


@dataclass(frozen=True, kw_only=True)
class WeiboOptions(SourceOptions):
    cookie: str | None = None  # TRENDLENS_WEIBO_COOKIE: a logged-in browser's, past the visitor wall

    @classmethod
    def from_settings(cls, settings: Settings, name: str) -> Self:
        return replace(super().from_settings(settings, name), cookie=settings.platforms.weibo_cookie)


class Weibo(Source):
    name = "weibo"
    title = "微博热搜"
    lang = "zh"
    interval_s = 120
    domains = ("weibo.com", "weibo.cn")
    replay = "hotsearch.json"
    options_type = WeiboOptions
    options: WeiboOptions

    def endpoints(self) -> list[Endpoint]:
        cookie = {"Cookie": self.options.cookie} if self.options.cookie else {}
        return [
            Endpoint("https://weibo.com/ajax/side/hotSearch", "web",
                     {"Referer": "https://weibo.com/", "Accept": "application/json", **cookie}),
            Endpoint(f"https://m.weibo.cn/api/container/getIndex?containerid={_CONTAINER}", "mobile",
                     {"Referer": "https://m.weibo.cn/", "User-Agent": _MOBILE_UA, "MWeibo-Pwa": "1",
                      **cookie}),
            Endpoint("https://s.weibo.com/top/summary?cate=realtimehot", "html",
                     {"Referer": "https://s.weibo.com/", **cookie}),
        ]

    def parse(self, body: bytes, *, url: str | None = None) -> list[Topic]:
        text = decode_text(body).lstrip()
        if text.startswith("<"):
            return self._parse_html(text, url)
        data = load_json(self.name, text, url)
        check_envelope(self.name, data, url, code_key="ok", ok=(1, True))
        node = dig(self.name, data, "data", url)
        if isinstance(node, dict) and "realtime" in node:
            return self._parse_web(node["realtime"], url)
        if isinstance(node, dict) and "cards" in node:
            topics = self._parse_mobile(dig(self.name, node, "cards.0.card_group", url), url)
            cards = node["cards"]
            return topics + self._side_boards(cards[1:] if isinstance(cards, list) else [], {t.title for t in topics})
        raise ParseError(self.name, "missing 'data.realtime' (web) or 'data.cards' (mobile) in the response",
                         url=url)

    def _search_url(self, query: str) -> str:
        return _SEARCH + quote(query, safe="")

    def _parse_web(self, items: Any, url: str | None) -> list[Topic]:
        if not isinstance(items, list):
            raise ParseError(self.name, "'data.realtime' is not a list", url=url)
        topics: list[Topic] = []
        for item in items:
            # `data.hotgov` (pinned) is kept outside `realtime`; ads sit inside it with is_ad=1
            if not isinstance(item, dict) or item.get("is_ad") or not item.get("word"):
                continue
            word = str(item["word"])
            heat = item.get("num") if item.get("num") is not None else item.get("raw_hot")
            topics.append(self.topic(
                item_id=None, title=word, rank=int(item.get("realpos") or len(topics) + 1),
                heat=heat, heat_text=None if heat is None else str(heat),
                url=self._search_url(item.get("word_scheme") or f"#{word}#"),
                extra={k: item[k] for k in ("label_name", "category", "onboard_time") if item.get(k)},
            ))
        if items and not topics:
            raise ParseError(self.name, "no item in 'data.realtime' had a 'word'", url=url)
        return topics

    def _parse_mobile(self, group: Any, url: str | None) -> list[Topic]:
        if not isinstance(group, list):
            raise ParseError(self.name, "'data.cards.0.card_group' is not a list", url=url)
        topics: list[Topic] = []
        for item in group:
            if not isinstance(item, dict) or not item.get("desc"):
                continue
            scheme, marks = _marks(item)
            if _paid(marks):
                continue  # paid slot shown between ranked rows
            realpos = re.search(r"realpos(?::|%3D)(\d+)", marks)
            if realpos is None and item.get("desc_extr") in (None, ""):
                continue  # the pinned first row has no rank and no heat
            extr = item.get("desc_extr")
            label = re.match(r"\s*([^\d\s]+)\s+\d", str(extr or ""))
            title = str(item["desc"])
            topics.append(self.topic(
                item_id=None, title=title, rank=int(realpos.group(1)) if realpos else len(topics) + 1,
                heat_text=None if extr in (None, "") else str(extr),
                url=self._search_url(_query(scheme) or f"#{title}#"),
                extra={"category": label.group(1)} if label else {},
            ))
        if group and not topics:
            raise ParseError(self.name, "no entry in 'data.cards.0.card_group' had a 'desc'", url=url)
        return topics

    def _side_boards(self, cards: list[Any], seen: set[str]) -> list[Topic]:
        """The rows of the mobile answer's other boards (see the module) that the ranked board lacks."""
        topics: list[Topic] = []
        for card in cards:
            group = card.get("card_group") if isinstance(card, dict) else None
            if not isinstance(group, list):
                continue
            # the board's name: the card's own title (实时上升热点), else its header row's (文娱热搜)
            header = next((i.get("title") for i in group if isinstance(i, dict) and i.get("card_type") == 101), "")
            board = str(card.get("title") or header or "").strip()
            for item in group:
                # a topic row is card type 4 (as on the ranked board); 6 is the "查看更多…" link, 101 a header
                if not isinstance(item, dict) or item.get("card_type") != 4 or not item.get("desc"):
                    continue
                scheme, marks = _marks(item)
                title = str(item["desc"])
                if title in seen or _paid(marks):
                    continue
                seen.add(title)
                # no heat: a side board's figure ("正在热转", a rising row's discussion count) is no ranked row's
                # heat, and a heat would lengthen Weibo's list in the fair heat every platform is read against
                topics.append(self.topic(
                    item_id=None, title=title, rank=None,
                    url=self._search_url(_query(scheme) or f"#{title}#"),
                    extra={"board": board} if board else {},
                ))
        return topics

    def _parse_html(self, text: str, url: str | None) -> list[Topic]:
        tree = LexborHTMLParser(text)
        rows = tree.css("#pl_top_realtimehot tbody tr") or tree.css("ul.list_a li")
        if not rows:
            ensure_not_blocked(self.name, text, url)
            raise ParseError(self.name, "no '#pl_top_realtimehot' table or 'ul.list_a' list in the page",
                             url=url)
        topics: list[Topic] = []
        for row in rows:
            link = row.css_first("td.td-02 a") or row.css_first("a")
            rank_node = row.css_first("td.td-01") or row.css_first("strong")
            rank_text = rank_node.text(strip=True) if rank_node else ""
            if link is None or not rank_text.isdigit():
                continue  # pinned row (icon, no number) or ad row ("•")
            href = link.attributes.get("href") or ""
            if "topic_ad=1" in href or "href_to" in link.attributes or row.css_first("i.icon_pinned"):
                continue
            heat_node = row.css_first("td.td-02 span") if row.css_first("td.td-02") else link.css_first("em")
            if row.css_first("td.td-02"):
                title = link.text(strip=True)
            else:
                span = link.css_first("span")
                title = span.text(deep=False, strip=True) if span else link.text(strip=True)
            heat_text = heat_node.text(strip=True) if heat_node else ""
            query = (parse_qs(urlsplit(href).query).get("q") or [f"#{title}#"])[0]
            topics.append(self.topic(
                item_id=None, title=title, rank=int(rank_text), heat_text=heat_text or None,
                url=self._search_url(query),  # drop the tracking params (Refer=, band_rank=)
            ))
        return topics


def _marks(item: dict[str, Any]) -> tuple[str, str]:
    """A mobile row's link, and the text its rank and paid marks are read from (link, log, item id)."""
    scheme = str(item.get("scheme") or "")
    log = item.get("actionlog")
    ext = log.get("ext", "") if isinstance(log, dict) else ""
    return scheme, f"{scheme} {ext} {item.get('itemid', '')}"


def _paid(marks: str) -> bool:
    """A paid slot shown among a board's rows (`marks` holds the row's link too)."""
    return "is_ad_pos:1" in marks or "topic_ad%3D1" in marks


def _query(scheme: str) -> str | None:
    """The search word of a mobile row's link: it sits inside the (decoded) containerid,
    "100103type=1&t=10&q=#word#"."""
    params = parse_qs(urlsplit(scheme).query)
    found = params.get("q") or parse_qs(params.get("containerid", [""])[0]).get("q") or []
    return found[0] if found else None
