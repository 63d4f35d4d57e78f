"""The digest: top topics merged across platforms, with heat sparklines, as JSON, Markdown or HTML."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from .links import safe_link
from .models import utcnow
from .ranking.merge import Cluster, cluster_topics
from .store import Store

__all__ = ["Digest", "DigestItem", "build_digest", "render_digest", "sparkline", "svg_sparkline"]

_BARS = "▁▂▃▄▅▆▇█"
Trend = Literal["new", "rising", "falling", "steady"]
PLATFORM_NAMES = {
    "weibo": "微博", "zhihu": "知乎", "baidu": "百度", "douyin": "抖音", "bilibili": "B站", "toutiao": "头条",
    "tieba": "贴吧", "v2ex": "V2EX", "hackernews": "Hacker News", "reddit": "Reddit", "google_trends": "Google Trends",
    "github_trending": "GitHub", "wikipedia": "Wikipedia",
}


@dataclass(frozen=True, kw_only=True)
class DigestItem:
    cluster_id: str
    title: str
    platforms: list[dict[str, Any]]  # {source, rank, heat, url (safe or None), title}
    heat: float
    trend: Trend
    history: list[float] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Digest:
    generated_at: str
    since: str
    lang: str | None
    items: list[DigestItem]

    def public(self) -> dict[str, Any]:
        return {"generated_at": self.generated_at, "since": self.since, "lang": self.lang,
                "items": [item.__dict__ for item in self.items]}


def build_digest(store: Store, *, lang: str | None = None, limit: int = 20, since_hours: float = 24,
                 since: datetime | None = None, clusters: Sequence[Cluster] | None = None) -> Digest:
    """Current topics clustered across platforms, hottest clusters first.

    `clusters` are the running service's (embedding-informed, with stable ids); without
    them the topics are clustered here from their titles alone.
    """
    now = utcnow()
    since = since or now - timedelta(hours=since_hours)
    stored = [s for s in store.current(lang=lang) if datetime.fromisoformat(s.last_seen) >= since]
    by_id = {s.topic.id: s for s in stored}
    items = []
    if clusters is None:
        clusters = cluster_topics([s.topic for s in stored])
    for cluster in clusters:
        members = sorted((m for m in cluster.members if m.id in by_id), key=lambda t: -(t.heat or 0))
        if not members:
            continue
        lead = by_id[members[0].id]
        trends = {by_id[m.id].trend for m in members}
        trend: Trend = "new" if trends == {"new"} else "rising" if "rising" in trends else lead.trend
        history = [p.heat for p in store.history(lead.topic.id) if p.heat is not None]
        items.append(DigestItem(
            cluster_id=cluster.id, title=lead.topic.title, heat=float(sum(m.heat or 0 for m in members)), trend=trend,
            history=history[-24:],
            platforms=[{"source": m.source, "rank": m.rank, "heat": m.heat, "title": m.title, "url": safe_link(m)}
                       for m in members],
        ))
    items.sort(key=lambda i: (-len(i.platforms), -i.heat))
    return Digest(generated_at=now.isoformat(), since=since.isoformat(), lang=lang, items=items[:limit])


def sparkline(values: list[float]) -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = hi - lo or 1.0
    return "".join(_BARS[min(len(_BARS) - 1, int((v - lo) / span * (len(_BARS) - 1)))] for v in values)


def svg_sparkline(values: list[float], width: int = 120, height: int = 24) -> str:
    if len(values) < 2:
        values = (values or [0.0]) * 2
    lo, hi = min(values), max(values)
    span = hi - lo or 1.0
    step = width / (len(values) - 1)
    points = " ".join(f"{i * step:.1f},{height - (v - lo) / span * (height - 2) - 1:.1f}" for i, v in enumerate(values))
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="heat trend"><polyline fill="none" stroke="currentColor" stroke-width="1.5" '
            f'points="{points}"/></svg>')


_MARK = {"new": "🆕", "rising": "↑", "falling": "↓", "steady": ""}


def _fmt_heat(v: float | None) -> str:
    if not v:
        return ""
    if v >= 1e8:
        return f"{v / 1e8:.1f}亿"
    if v >= 1e4:
        return f"{v / 1e4:.0f}万"
    return f"{v:g}"


def _md_escape(text: str) -> str:
    # Markdown renderers pass raw HTML through: neutralise it, and the link syntax
    out = html.escape(text, quote=False)
    for ch in "[]()*_`#|":
        out = out.replace(ch, "\\" + ch)
    return out


def render_digest(d: Digest, fmt: Literal["json", "md", "html"] | str) -> str:
    if fmt == "json":
        import json

        return json.dumps(d.public(), ensure_ascii=False, indent=1)
    if fmt == "md":
        lines = [f"# 热梗透视镜 TrendLens digest — {d.generated_at[:16].replace('T', ' ')} UTC", ""]
        for n, item in enumerate(d.items, 1):
            mark = _MARK[item.trend]
            lines.append(f"{n}. **{_md_escape(item.title)}** {mark} {_fmt_heat(item.heat)} `{sparkline(item.history)}`")
            for p in item.platforms:
                name = PLATFORM_NAMES.get(p["source"], p["source"])
                label = f"{name} #{p['rank']}" if p["rank"] else name
                link = f" — <{p['url']}>" if p["url"] else ""
                lines.append(f"   - {_md_escape(label)}: {_md_escape(p['title'])}{link}")
        if not d.items:
            lines.append("_No topics yet — run `trendlens fetch`._")
        return "\n".join(lines) + "\n"
    if fmt == "html":
        e = html.escape
        rows = []
        for item in d.items:
            plats = []
            for p in item.platforms:
                name = e(PLATFORM_NAMES.get(p["source"], p["source"]))
                label = f"{name} #{p['rank']}" if p["rank"] else name
                title = e(p["title"])
                plats.append(f'<li>{label}: <a href="{e(p["url"])}" rel="noopener noreferrer nofollow">{title}</a></li>'
                             if p["url"] else f"<li>{label}: {title}</li>")
            rows.append(f'<article><h2>{e(item.title)} <span class="trend">{_MARK[item.trend]}</span> '
                        f'<span class="heat">{e(_fmt_heat(item.heat))}</span></h2>{svg_sparkline(item.history)}'
                        f'<ul>{"".join(plats)}</ul></article>')
        body = "".join(rows) or "<p>No topics yet.</p>"
        return ("<!doctype html><html lang=\"zh\"><head><meta charset=\"utf-8\">"
                "<meta http-equiv=\"Content-Security-Policy\" "
                "content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                "<title>TrendLens digest</title><style>body{font-family:sans-serif;max-width:46rem;margin:auto;"
                "background:#0b0f0b;color:#d7ffd7}a{color:#8f8}.spark{color:#5f5}h2{font-size:1.1rem}</style>"
                f"</head><body><h1>热梗透视镜 TrendLens — {e(d.generated_at[:16])} UTC</h1>{body}</body></html>\n")
    raise ValueError(f"unknown digest format {fmt!r}; valid: json, md, html")
