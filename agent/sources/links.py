"""Which upstream links may be shown, and how a person reads them.

Upstream text is hostile until proven otherwise; a title can carry markup and a
link can point anywhere (`https://weibo.com@evil.example`). Renderers call
`safe_link` and escape everything else.

Where a person reads an answer (chat, Lingzhu, an MCP tool's text) a link is shown
as `readable_link` makes it: a Baidu search link is 190 characters of percent-escapes
for a 15-character title. Structured answers (JSON fields) keep the full URL.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

from wcwidth import wcswidth

from agent.models import Topic
from agent.platforms import platform_record
from agent.sources import REGISTRY
from agent.sources.base import link_in_domains

__all__ = ["READABLE_LINK_WIDTH", "readable_link", "safe_link", "safe_url"]

READABLE_LINK_WIDTH = 100
"""Columns a link may take in a reply (a CJK character takes two); a longer one is left out of the text."""

# Query parameters that say where a click came from, not where it goes (Baidu's sa/rsv_*, utm_*, ...).
_TRACKING = re.compile(r"utm_\w+|spm|sa|rsv_\w+|from|ref|ref_src|src|share_\w+|si|fbclid|gclid|igshid|scene|"
                       r"wfr|vd_source|is_from_webapp|sender_device", re.I)
_UNRESERVED = "-._~"


def safe_link(topic: Topic, extra_domains: dict[str, tuple[str, ...]] | None = None) -> str | None:
    """The topic's url if it is safe to render as a link, else None."""
    return safe_url(topic.source, topic.url, extra_domains)


def safe_url(source: str, url: str | None, extra_domains: dict[str, tuple[str, ...]] | None = None) -> str | None:
    """`url` if it is safe to render as a link of `source` (on its own domains), else None."""
    cls = REGISTRY.get(source)
    if cls is not None:
        domains = cls.domains
    else:  # a platform an aggregator's route registered: the host its first answer's links were on
        platform = platform_record(source)
        domains = (extra_domains or {}).get(source, ()) or (platform.domains if platform is not None else ())
    return url if link_in_domains(url, domains) else None


def _readable(text: str, *, safe: str = "", space: str = "%20") -> str:
    """Letters of any script as themselves; ASCII punctuation, spaces and invisible characters escaped."""
    out = []
    for ch in text:
        if ch.isascii():
            out.append(space if ch == " " else ch if ch.isalnum() or ch in _UNRESERVED + safe else quote(ch, safe=""))
        else:
            out.append(ch if ch.isprintable() and not ch.isspace() else quote(ch, safe=""))
    return "".join(out)


def readable_link(url: str | None, *, max_width: int = READABLE_LINK_WIDTH) -> str | None:
    """`url` as a person reads it: escapes of letters decoded, tracking parameters and the fragment dropped.

    None when there is no link or it is still wider than `max_width` columns: then the text goes
    without it, and the structured answer keeps the full URL.
    """
    if not url:
        return None
    parts = urlsplit(url)
    query = "&".join(f"{_readable(k, space='+')}={_readable(v, space='+')}"
                     for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.fullmatch(k))
    shown = urlunsplit((parts.scheme, parts.netloc, _readable(unquote(parts.path), safe="/"), query, ""))
    width = wcswidth(shown)
    return shown if 0 <= width <= max_width else None
