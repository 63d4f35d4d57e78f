"""The digest: top topics merged across platforms, with heat sparklines, as JSON, Markdown or HTML."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from urllib.parse import quote

from agent.models import Topic, Trend, utcnow
from agent.platforms import platform_name
from agent.ranking.fair_heat import normalised_heat, story_heat
from agent.sources.links import safe_link
from agent.store import Store, StoredTopic
from agent.stories.answer import story_answer
from agent.stories.grouping import StoryIndex
from agent.stories.linking import Story, evidence, occasion_test
from agent.stories.occasions import Occasion, find_occasions
from agent.stories.published import StoryView
from agent.stories.view import by_heat, story_trend
from agent.text import format_heat

__all__ = ["Digest", "DigestItem", "balance", "build_digest", "render_digest", "sparkline", "svg_sparkline"]

_BARS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True, kw_only=True)
class DigestItem:
    cluster_id: str
    title: str
    platforms: list[dict[str, Any]]  # {source, id, rank, heat (raw), normalised, url (safe or None), title}
    heat: float  # raw heats summed: display only, scales differ by platform
    score: float  # fair heat: each platform's best normalised heat, summed (agent/ranking/fair_heat.py)
    trend: Trend
    history: list[float] = field(default_factory=list)  # the lead member's normalised heat over time
    why: dict[str, Any] = field(default_factory=dict)  # {"summary": str, "links": [...]} when merged
    # an occasion's entry (a gala night): its stories, each {cluster_id, title, platforms}; empty for a story
    stories: list[dict[str, Any]] = field(default_factory=list)
    occasion: dict[str, Any] | None = None  # {id, title, word} on an occasion's entry


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
                 since: datetime | None = None, clusters: Sequence[Story] | None = None,
                 view: StoryView | None = None) -> Digest:
    """Current topics clustered across platforms, hottest clusters first.

    `view` is the story view the running service published (`StoryIndex.published`): its stories and
    the occasions they sit under are read as they are. Without it, `clusters` are the service's stories
    and their occasions are found over the topics shown; without either, the topics are grouped here
    by a story index of their own, from their titles alone.
    """
    now = utcnow()
    since = since or now - timedelta(hours=since_hours)
    stored = [s for s in store.current(lang=lang) if datetime.fromisoformat(s.last_seen) >= since]
    by_id = {s.topic.id: s for s in stored}
    fair = normalised_heat([s.topic for s in stored])
    list_size = {src: sum(1 for s in stored if s.topic.source == src) for src in {s.topic.source for s in stored}}
    items = []
    if view is None and clusters is None:
        index = StoryIndex()
        index.update([s.topic for s in stored])
        view = index.published
    if view is not None:
        clusters = view.stories
    assert clusters is not None
    for cluster in clusters:
        members = by_heat([by_id[m.id].topic for m in cluster.members if m.id in by_id], fair)
        if not members:
            continue
        lead = by_id[members[0].id]
        trend = story_trend({by_id[m.id].trend for m in members}, lead.trend)
        # history by rank on the lead's list, read against that list's current length
        n = list_size.get(lead.topic.source, 0)
        history = [round((n - p.rank + 1) / (n + 1), 3) for p in store.history(lead.topic.id)
                   if p.rank is not None and n]
        answer = story_answer(lead.topic, cluster, stored=by_id)
        why: dict[str, Any] = {}
        if answer.links:
            why = {"summary": answer.why("en" if lang == "en" else "zh"), **answer.public()["why"]}
        items.append(DigestItem(
            cluster_id=cluster.id, title=lead.topic.title, heat=float(sum(m.heat or 0 for m in members)),
            score=round(story_heat(members, fair), 4), trend=trend, history=[max(h, 0.0) for h in history[-24:]],
            why=why,
            platforms=[{"source": m.source, "id": m.id, "rank": m.rank, "heat": m.heat,
                        "normalised": round(fair.get(m.id, 0.0), 4), "title": m.title, "url": safe_link(m)}
                       for m in members],
        ))
    occasions = view.occasions if view is not None else _occasions_shown(items, clusters, by_id)
    items = _under_occasions(items, occasions)
    items.sort(key=lambda i: (-i.score, -len(i.platforms), i.cluster_id))
    return Digest(generated_at=now.isoformat(), since=since.isoformat(), lang=lang,
                  items=balance(items, limit=limit))


def _occasions_shown(items: list[DigestItem], clusters: Sequence[Story],
                     by_id: Mapping[str, StoredTopic]) -> list[Occasion]:
    """The occasions of stories passed without their view: found by the rule the story index groups by
    (`stories.occasion_test`), over the topics shown. Callers holding the published view pass it."""
    shown = {i.cluster_id for i in items}
    ev = {tid: evidence(s.topic) for tid, s in by_id.items()}
    occasion, _template = occasion_test(list(ev.values()))
    counts: Counter[str] = Counter(t for e in ev.values() for t in e.title_terms)
    words = sorted((t for t in counts if occasion(t)), key=lambda t: (-counts[t], t))
    if not words:
        return []

    def terms_of(topic: Topic) -> frozenset[str]:
        e = ev.get(topic.id)
        return e.title_terms if e is not None else frozenset()

    return find_occasions([c for c in clusters if c.id in shown], words, terms_of,
                          lambda t: sum(1 for x in terms_of(t) if not occasion(x)))


def _under_occasions(items: list[DigestItem], occasions: Sequence[Occasion]) -> list[DigestItem]:
    """The stories of one occasion (a gala night) as one entry that lists them, hottest first, placed
    where its hottest story would be; every other story stays an entry of its own."""
    by_cluster = {i.cluster_id: i for i in items}
    folded: set[str] = set()
    out = []
    for o in occasions:
        held = sorted((by_cluster[sid] for sid in o.story_ids if sid in by_cluster),
                      key=lambda i: (-i.score, i.cluster_id))
        if len(held) < 2:
            continue  # of the stories shown, fewer than two sit under it: no occasion to fold
        folded.update(o.story_ids)
        lead = held[0]
        out.append(DigestItem(
            cluster_id=o.id, title=o.title, platforms=lead.platforms, heat=sum(i.heat for i in held),
            score=lead.score, trend=lead.trend, history=lead.history,
            stories=[{"cluster_id": i.cluster_id, "title": i.title,
                      "platforms": [{k: p[k] for k in ("source", "rank", "heat", "title", "url")} for p in i.platforms]}
                     for i in held],
            occasion={"id": o.id, "title": o.title, "word": o.word}))
    return out + [i for i in items if i.cluster_id not in folded]


def balance(items: Sequence[DigestItem], *, limit: int, block: int = 10, share: int = 6) -> list[DigestItem]:
    """At most `share` of every `block` consecutive places led by one platform, unless only that
    platform has items left: one busy list must not take over the top of the digest."""
    left = list(items)
    out: list[DigestItem] = []
    while left and len(out) < limit:
        start = len(out) - len(out) % block
        counts: dict[str, int] = {}
        for item in out[start:]:
            counts[item.platforms[0]["source"]] = counts.get(item.platforms[0]["source"], 0) + 1
        pick = next((i for i, item in enumerate(left) if counts.get(item.platforms[0]["source"], 0) < share), 0)
        out.append(left.pop(pick))
    return out


def sparkline(values: list[float]) -> str:
    """Bars on the fixed 0–1 scale of normalised heat, so two items' lines compare."""
    if not values:
        return ""
    lo, hi = 0.0, max(1.0, max(values))
    span = hi - lo
    return "".join(_BARS[min(len(_BARS) - 1, int((v - lo) / span * (len(_BARS) - 1)))] for v in values)


def svg_sparkline(values: list[float], width: int = 120, height: int = 24) -> str:
    if len(values) < 2:
        values = (values or [0.0]) * 2
    lo, hi = 0.0, max(1.0, max(values))
    span = hi - lo
    step = width / (len(values) - 1)
    points = " ".join(f"{i * step:.1f},{height - (v - lo) / span * (height - 2) - 1:.1f}" for i, v in enumerate(values))
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="heat trend"><polyline fill="none" stroke="currentColor" stroke-width="1.5" '
            f'points="{points}"/></svg>')


# Words, not only emoji: a display or font without the glyph still tells new from rising.
_MARK = {"new": "NEW 新", "rising": "↑ RISING 上升", "falling": "↓ falling", "steady": ""}


def _platform_label(p: dict[str, Any], lang: str | None) -> str:
    """"百度 #1 · 498万": the platform, its own rank and its own raw heat."""
    name = platform_name(p["source"], "en" if lang == "en" else "zh")
    label = f"{name} #{p['rank']}" if p["rank"] else name
    raw = format_heat(p["heat"], "zh")
    return f"{label} · {raw}" if raw else label


def _headline_figure(item: DigestItem, lang: str | None) -> str:
    """What a reader knows: where it is highest, that list's own heat, and on how many platforms
    (the fair-heat score orders the digest and stays in the JSON)."""
    best = _platform_label(item.platforms[0], lang)
    count = len({p["source"] for p in item.platforms})
    if count < 2:
        return best
    return f"{best} · {count} platforms" if lang == "en" else f"{best} · {count}个平台"


def _why_scores(item: DigestItem) -> str:
    """The merging links' scores, for a tooltip."""
    return "; ".join(f"p {link['probability']:.2f}, overlap {link['overlap']:.2f}"
                     + (f", cosine {link['cosine']:.2f}" if link.get("cosine") is not None else "")
                     for link in item.why.get("links", [])[:3])


def _md_escape(text: str) -> str:
    # Markdown renderers pass raw HTML through: neutralise it, and the link syntax
    out = html.escape(text, quote=False)
    for ch in "[]()*_`#|":
        out = out.replace(ch, "\\" + ch)
    return out


def _md_autolink(url: str) -> str:
    """`<url>` with everything an autolink cannot hold percent-encoded (space, controls, `<`, `>`,
    non-ASCII), so a hostile URL cannot close the link and start Markdown or HTML of its own."""
    return "<" + "".join(c if 0x21 <= ord(c) < 0x7F and c not in "<>" else quote(c, safe="") for c in url) + ">"


def render_digest(d: Digest, fmt: Literal["json", "md", "html"] | str) -> str:
    if fmt == "json":
        import json

        return json.dumps(d.public(), ensure_ascii=False, indent=1)
    if fmt == "md":
        lines = [f"# 热梗透视镜 TrendLens digest — {d.generated_at[:16].replace('T', ' ')} UTC", ""]
        for n, item in enumerate(d.items, 1):
            mark = f"**[{_MARK[item.trend]}]** " if _MARK[item.trend] else ""
            spark = f" `{sparkline(item.history)}`" if len(item.history) >= 2 else ""
            figure = _md_escape(_headline_figure(item, d.lang))
            if item.stories:  # an occasion: its stories, one line each
                count = f"{len(item.stories)} stories" if d.lang == "en" else f"{len(item.stories)}个话题"
                lines.append(f"{n}. {mark}**{_md_escape(item.title)}** — {count}")
                for story in item.stories:
                    where = " · ".join(_md_escape(_platform_label(p, d.lang)) for p in story["platforms"])
                    lines.append(f"   - {_md_escape(story['title'])} — {where}")
                continue
            lines.append(f"{n}. {mark}**{_md_escape(item.title)}** — {figure}{spark}")
            for p in item.platforms:
                lines.append(f"   - {_md_escape(_platform_label(p, d.lang))}: {_md_escape(p['title'])}"
                             + (f" — {_md_autolink(p['url'])}" if p["url"] else ""))
            if item.why:
                lines.append(f"   - why merged: {_md_escape(item.why['summary'])}")
        if not d.items:
            lines.append("_No topics yet — run `trendlens fetch`._")
        return "\n".join(lines) + "\n"
    if fmt == "html":
        e = html.escape
        rows = []
        for item in d.items:
            if item.stories:  # an occasion: its stories, one line each
                lines_ = "".join(
                    f"<li>{e(story['title'])} <span class=\"heat\">"
                    f"{e(' · '.join(_platform_label(p, d.lang) for p in story['platforms']))}</span></li>"
                    for story in item.stories)
                rows.append(f'<article class="item occasion"><h2>{e(item.title)} '
                            f'<span class="heat">{len(item.stories)}</span></h2><ul>{lines_}</ul></article>')
                continue
            plats = []
            for p in item.platforms:
                label = e(_platform_label(p, d.lang))
                title = e(p["title"])
                plats.append(f'<li>{label}: <a href="{e(p["url"])}" rel="noopener noreferrer nofollow">{title}</a></li>'
                             if p["url"] else f"<li>{label}: {title}</li>")
            why = (f'<p class="why" title="{e(_why_scores(item))}">why merged: {e(item.why["summary"])}</p>'
                   if item.why else "")
            spark = svg_sparkline(item.history) if len(item.history) >= 2 else ""
            mark = (f'<span class="trend trend-{item.trend}">{e(_MARK[item.trend])}</span> '
                    if _MARK[item.trend] else "")
            rows.append(f'<article class="item {item.trend}"><h2>{mark}{e(item.title)} '
                        f'<span class="heat">{e(_headline_figure(item, d.lang))}</span></h2>{spark}'
                        f'<ul>{"".join(plats)}</ul>{why}</article>')
        body = "".join(rows) or "<p>No topics yet.</p>"
        return ("<!doctype html><html lang=\"zh\"><head><meta charset=\"utf-8\">"
                "<meta http-equiv=\"Content-Security-Policy\" "
                "content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                "<title>TrendLens digest</title><style>body{font-family:sans-serif;max-width:46rem;margin:auto;"
                "background:#0b0f0b;color:#d7ffd7}a{color:#8f8}.spark{color:#5f5}h2{font-size:1.1rem}"
                ".trend{font-size:.8rem;font-weight:bold;padding:0 .3em;border-radius:3px}"
                ".trend-new{background:#ffd75f;color:#000}.trend-rising{background:#5fd75f;color:#000}"
                ".trend-falling{border:1px solid #888}.item.new,.item.rising{border-left:4px solid #5fd75f;"
                "padding-left:.6em}.why{font-size:.8rem;color:#9c9}</style>"
                f"</head><body><h1>热梗透视镜 TrendLens — {e(d.generated_at[:16])} UTC</h1>{body}</body></html>\n")
    raise ValueError(f"unknown digest format {fmt!r}; valid: json, md, html")
