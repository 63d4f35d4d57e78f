"""How answers say things: a title short enough to read aloud, and how long ago (heat: `text.format_heat`).

Pure functions with no view of the running service: the story answer (`answer.py`), which the
digest also reads, and the chat's facts both say things this way.
"""

from __future__ import annotations

import re
from datetime import datetime

from agent.models import utcnow

__all__ = ["ago", "short_title"]


_CLAUSE_END = re.compile(r"[，,；;：:？?！!。]")


def short_title(title: str, *, limit: int = 24) -> str:
    """A title short enough to say aloud: up to its first clause end when it is long.

    Zhihu questions run to 60 characters ("外交部回应…，称「…」，美国的做法还有意义吗？");
    their first clause names the story.
    """
    if len(title) <= limit:
        return title
    m = _CLAUSE_END.search(title, 6)
    if m and m.start() <= limit * 2:
        return title[:m.start()]
    cut = title[:limit]
    return (cut.rsplit(" ", 1)[0] if " " in cut[8:] else cut) + "…"


def ago(when: datetime | None, lang: str, *, now: datetime | None = None) -> str:
    """How long ago, in words: "3小时前" / "3 hours ago"."""
    if when is None:
        return ""
    seconds = max(0.0, ((now or utcnow()) - when).total_seconds())
    hours = seconds / 3600
    if hours < 1:
        return "1小时内" if lang == "zh" else "within the last hour"
    if hours < 48:
        n = int(hours)
        return f"{n}小时前" if lang == "zh" else f"{n} hour{'s' if n != 1 else ''} ago"
    days = int(hours // 24)
    return f"{days}天前" if lang == "zh" else f"{days} days ago"
