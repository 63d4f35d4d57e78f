"""Which upstream links may be shown: http(s) only, on the source's own domain.

Upstream text is hostile until proven otherwise; a title can carry markup and a
link can point anywhere (`https://weibo.com@evil.example`). Renderers call
`safe_link` and escape everything else.
"""

from __future__ import annotations

from .models import Topic
from .sources import REGISTRY
from .sources.base import link_in_domains

__all__ = ["safe_link"]


def safe_link(topic: Topic, extra_domains: dict[str, tuple[str, ...]] | None = None) -> str | None:
    """The topic's url if it is safe to render as a link, else None."""
    cls = REGISTRY.get(topic.source)
    domains = cls.domains if cls is not None else (extra_domains or {}).get(topic.source, ())
    return topic.url if link_in_domains(topic.url, domains) else None
