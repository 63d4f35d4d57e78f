"""What the aggregators' routes share (DailyHotApi, newsnow): one route is one source, named after
the platform it serves.

A configured route (`RouteOptions.route`) fetches under its platform's source id, so its outcome,
health, schedule and topics are that platform's, exactly as a direct fetcher's would be. Built bare
(`trendlens parse dailyhot FILE`, the golden pairs) it only parses, naming the platform from the body
and registering nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from ..models import Lang, Topic
from ..platforms import PLATFORMS, caption_label, platform_record, register_platform
from .base import Source, SourceOptions
from .feed import plain
from .heat import parse_heat

__all__ = ["AggregatedRoute", "RouteOptions", "aggregated_topic", "http_link", "item_heat", "platform_id",
           "route_platform"]

_ID = re.compile(r"[^a-z0-9_\-]+")
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1\s*>", re.I | re.S)
# Text that says when, not how hot ("3小时前", "12:30", "2 hours ago"): never read as heat.
_WHEN = re.compile(r"前|ago|\d:\d|分钟|小时|昨天|今天|刚刚", re.I)


@dataclass(frozen=True, kw_only=True)
class RouteOptions(SourceOptions):
    base_url: str | None = None  # the aggregator instance
    route: str | None = None  # the aggregator's own name of the route (`weibo`, `36kr-quick`)
    platform: str | None = None  # the source id its topics carry
    label: str | None = None  # the operator's name for a platform we do not know (newsnow gives none)
    lang: Lang | None = None  # a known platform's list language
    unavailable: str | None = None  # why no route could be listed (the placeholder source's reason)


class AggregatedRoute(Source):
    lang: ClassVar[Lang] = "other"
    interval_s = 600
    setting: ClassVar[str]  # the variable naming the instance, for the disabled reason
    known: ClassVar[dict[str, str]]  # the aggregator's route name → our source id
    # A hot list is tens of items; an instance answering thousands must not grow every cycle's write.
    max_items: ClassVar[int] = 200
    options: RouteOptions

    def __init__(self, options: RouteOptions | None = None) -> None:
        super().__init__(options)
        if self.options.platform:
            self.name = self.options.platform  # type: ignore[misc]
            if platform_record(self.options.platform) is None:
                # named from the start (the operator's label, else the route's id), so `/v1/sources`
                # labels it before the first answer brings the route's own title
                register_platform(self.options.platform, self.options.label)
            self._label_title()
        if self.options.lang:
            self.lang = self.options.lang  # type: ignore[misc]

    def _label_title(self) -> None:
        """`36氪 (DailyHotApi)`: the platform as captions name it, then the aggregator serving it."""
        self.title = f"{caption_label(self.name)} ({type(self).title})"  # type: ignore[misc]

    def disabled_reason(self, *, replaying: bool = False) -> str | None:
        if self.options.unavailable:
            return self.options.unavailable
        if not self.options.base_url:
            return f"no {self.setting} set (the base URL of the instance to read)"
        if not self.options.route:
            return f"no route chosen for {self.title}"
        return None

    def claim(self, platform: str, *, label: Any, link: Any) -> str:
        """The source id this answer's topics carry. A configured route keeps its own (its outcome and
        topics must agree) and registers a platform we do not know under the route's title."""
        if not self.options.platform:
            return platform
        if self.options.platform not in PLATFORMS:  # a table platform keeps its own record
            host = urlsplit(link).hostname if isinstance(link, str) else None
            register_platform(self.options.platform,
                              self.options.label or (label if isinstance(label, str) else None),
                              domains=(_registrable(host),) if host else ())
            self._label_title()
        return self.options.platform


def http_link(value: Any) -> str | None:
    """An item's link when it is an http(s) URL with a host and no userinfo, else None."""
    if not isinstance(value, str):
        return None
    link = value.strip()
    parts = urlsplit(link)
    return link if parts.scheme in ("http", "https") and parts.hostname and "@" not in parts.netloc else None


def platform_id(route: str) -> str:
    """A route name as a source id: lower case, letters, digits, `_` and `-` only."""
    return _ID.sub("-", route.strip().lower()).strip("-")[:40]


def route_platform(name: Any, known: dict[str, str], *, fallback: str) -> str:
    if not isinstance(name, str) or not name.strip():
        return fallback
    return known.get(name.strip()) or platform_id(name) or fallback


def item_heat(value: Any) -> tuple[float | None, str | None]:
    """An aggregator's heat field as (number, text as printed); no number when it holds none."""
    if value is None or isinstance(value, bool | dict | list):
        return None, None
    if isinstance(value, int | float):
        number = float(value)
        return (number, str(value)) if math.isfinite(number) and number >= 0 else (None, None)
    text = " ".join(str(value).split())[:40]
    if not text or not re.search(r"\d|[破过超近][万萬亿億千]", text) or _WHEN.search(text):
        return None, None
    return parse_heat(text), text


def aggregated_topic(source: AggregatedRoute, platform: str, *, rank: int, item_id: Any, title: Any,
                     summary: Any, url: str | None, heat: float | None, heat_text: str | None,
                     extra: dict[str, Any]) -> Topic | None:
    """One item as a topic of `platform`, or None when it has no title. Titles and summaries lose any
    markup an aggregator passed through (`<em>`, entities)."""
    text = _text(str(title), 300) if isinstance(title, str | int) and not isinstance(title, bool) else None
    if not text:
        return None
    topic = source.topic(item_id=item_id, title=text, summary=_text(summary, 280) if isinstance(summary, str) else None,
                         rank=rank, url=url, heat=heat, heat_text=heat_text,
                         extra={k: v for k, v in extra.items() if isinstance(v, str | int | float)
                                and not isinstance(v, bool)})
    return topic if topic.source == platform else topic.model_copy(update={"source": platform})


def _text(markup: str, limit: int) -> str | None:
    """Plain text of what may be HTML; twice, so an escaped tag (`&lt;b&gt;`) does not come back as one."""
    return plain(plain(_SCRIPT.sub(" ", markup), limit * 4), limit)


_ALIASES = ("www.", "m.", "mobile.", "wap.")  # a site's web and mobile hosts, one owner


def _registrable(host: str) -> str:
    """`m.36kr.com` → `36kr.com`: the site's web and mobile hosts are its own too. Nothing shorter than
    the host otherwise: a reported link names the host, and its parent may be a suffix many owners
    share (`blog.example.co.uk` → `co.uk`, `someone.github.io` → `github.io`), which would make
    every site under it a link of this platform."""
    host = host.lower().rstrip(".")
    for alias in _ALIASES:
        if host.startswith(alias) and host.count(".") >= 2:
            return host[len(alias):]
    return host
