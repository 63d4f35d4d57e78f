"""What a reader gets for "what is this story": one function every surface calls.

The chat (both languages, both styles), the Lingzhu agent, the digest and tools built on the
service read a story through `story_answer`: its lead title, every platform that lists it with
its own rank and heat, the trend, when it first appeared, and why its items are one story in
words (the names, places and figures the headlines share; scores stay in `public()`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from agent.models import Topic, Trend
from agent.platforms import platform_name
from agent.ranking.fair_heat import normalised_heat
from agent.sources.links import readable_link, safe_link
from agent.store.records import StoredTopic
from agent.stories.linking import Story
from agent.stories.view import per_platform, story_trend
from agent.stories.words import ago, short_title
from agent.text import format_heat

__all__ = ["StoryAnswer", "StoryPlace", "story_answer"]

Style = Literal["chat", "glasses"]
_TREND = {"zh": {"new": "新上榜", "rising": "在涨", "falling": "在降", "steady": "平稳"},
          "en": {"new": "new", "rising": "rising", "falling": "cooling", "steady": "steady"}}


@dataclass(frozen=True, kw_only=True)
class StoryPlace:
    """Where the story stands on one platform: its best-placed item there."""

    source: str
    id: str
    rank: int | None
    heat: float | None
    heat_text: str | None
    title: str
    url: str | None
    items: int  # how many of the story's items this list holds

    def public(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, kw_only=True)
class StoryAnswer:
    id: str  # the story's id (stable across fetch cycles); a lone item's own id
    title: str  # the lead: the item highest on its own list
    places: tuple[StoryPlace, ...]  # every platform, best placed first
    items: int
    trend: Trend
    first_seen: datetime | None
    history: tuple[float, ...]  # the lead's raw heat over time, oldest first (may be empty)
    shared: Mapping[str, Sequence[str]]  # the phrases the headlines share: numbers, names, words
    links: tuple[dict[str, Any], ...]  # the links that made it one story, with their scores
    link: str | None  # the lead's safe link

    def where(self, lang: str, *, limit: int | None = None, spoken: bool = False) -> str:
        """"抖音第1、百度第3" / "Douyin #1, Baidu #3"; `spoken` for a voice ("抖音排第1")."""
        parts = []
        for p in self.places[:limit]:
            name = platform_name(p.source, lang)
            if lang == "zh":
                parts.append(name + ((f"排第{p.rank}" if spoken else f"第{p.rank}") if p.rank else ""))
            else:
                parts.append((f"number {p.rank} on {name}" if spoken else f"{name} #{p.rank}") if p.rank else name)
        if lang == "zh":
            return ("，" if spoken else "、").join(parts)
        return (" and " if spoken else ", ").join(parts)

    def why(self, lang: str) -> str:
        """Why these items are one story, in words; empty for a lone item."""
        if len(self.places) < 2 and self.items < 2:
            return ""
        names = [*self.shared.get("names", ()), *self.shared.get("words", ())][:4]
        numbers = list(self.shared.get("numbers", ()))[:3]
        wording = list(self.shared.get("wording", ()))[:1]
        if lang == "zh":
            said = [f"都提到{'、'.join(names)}" if names else "", f"同样的数字{'、'.join(numbers)}" if numbers else "",
                    f"都说「{wording[0]}」" if wording else ""]
            body = "，".join(s for s in said if s) or "说法相近"
            return f"{len(self.places)}个平台的{self.items}条说的是同一件事：{body}。"
        said = [f"all name {', '.join(names)}" if names else "", f"the same figures {', '.join(numbers)}"
                if numbers else "", f"all say “{wording[0]}”" if wording else ""]
        body = "; ".join(s for s in said if s) or "told alike"
        return f"{self.items} headlines on {len(self.places)} platforms tell one story: {body}."

    def text(self, lang: str, style: Style = "chat") -> str:
        """The answer to "what is this story", in the asker's language."""
        trend = _TREND["zh" if lang == "zh" else "en"][self.trend]
        since = ago(self.first_seen, lang)
        count = len(self.places)
        if style == "glasses":  # read aloud on a small card: short, no links
            said = short_title(self.title).rstrip("。.！!？?…，,")
            if lang == "zh":
                where = f"{count}个平台都在榜：{self.where(lang, limit=3, spoken=True)}" if count > 1 else \
                    f"在{self.where(lang, spoken=True)}"
                return f"「{said}」{where}。热度{trend}。" + (f"{since}上榜。" if since else "")
            where = f"is on {count} platforms: {self.where(lang, limit=3, spoken=True)}" if count > 1 else \
                f"is {self.where(lang, spoken=True)}"
            return f"{said} {where}. Heat is {trend}." + (f" First seen {since}." if since else "")
        moves = ""
        if len(self.history) >= 2 and self.history[0] != self.history[-1]:
            moves = f"{format_heat(self.history[0], lang)} → {format_heat(self.history[-1], lang)}"
        heat = format_heat(self.places[0].heat, lang) if self.places else ""
        why = self.why(lang)
        link = f"\n{shown}" if (shown := readable_link(self.link)) else ""
        if lang == "zh":
            where = (f"{count}个平台在榜：{self.where(lang)}" if count > 1 else f"在{self.where(lang)}")
            trend_words = trend + (f"（{moves}）" if moves else "")
            parts = [where, f"热度{heat}，{trend_words}" if heat else f"热度{trend_words}",
                     f"{since}首次上榜" if since else ""]
            return f"「{self.title}」：" + "；".join(p for p in parts if p) + "。" + (why and " " + why) + link
        where = f"on {count} platforms: {self.where(lang)}" if count > 1 else f"on {self.where(lang)}"
        trend_words = trend + (f" ({moves})" if moves else "")
        parts = [where, f"heat {heat}, {trend_words}" if heat else f"heat {trend_words}",
                 f"first seen {since}" if since else ""]
        return f"{self.title}: " + "; ".join(p for p in parts if p) + "." + (why and " " + why) + link

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "platforms": [p.public() for p in self.places],
                "items": self.items, "trend": self.trend,
                "first_seen": self.first_seen.isoformat() if self.first_seen else None,
                "history": list(self.history), "why": {"zh": self.why("zh"), "en": self.why("en"),
                                                       "shared": {k: list(v) for k, v in self.shared.items()},
                                                       "links": list(self.links)},
                "link": self.link}


def story_answer(topic: Topic, story: Story | None, *, stored: Mapping[str, StoredTopic],
                 history: Sequence[float] = (), asked: bool = False) -> StoryAnswer:
    """The story `topic` belongs to (or `topic` alone), as a reader should get it.

    `stored` holds the current rows (trend and first appearance); `history` is the lead's heat
    over time when the caller has read it (the store's `history`). `asked`: the reader pointed
    at `topic` itself ("the second one"), so it leads and its list shows its own place."""
    members = [m for m in (story.members if story else (topic,)) if m.id in stored] or [topic]
    current = [stored[m.id].topic if m.id in stored else m for m in members]
    fair = normalised_heat([s.topic for s in stored.values() if s.topic.source in {m.source for m in current}])
    ordered = sorted(current, key=lambda m: (not (asked and m.id == topic.id), -fair.get(m.id, 0.0),
                                             m.rank or 10**6, m.id))
    places = tuple(StoryPlace(source=m.source, id=m.id, rank=m.rank, heat=m.heat, heat_text=m.heat_text,
                              title=m.title, url=safe_link(m), items=count) for m, count in per_platform(ordered))
    lead = ordered[0]
    rows = [stored[m.id] for m in ordered if m.id in stored]
    trend = story_trend({r.trend for r in rows}, stored[lead.id].trend if lead.id in stored else "steady")
    first = min((datetime.fromisoformat(r.first_seen) for r in rows), default=None)
    ids = {m.id for m in ordered}
    links = tuple(link.public() for link in (story.links if story else ()) if link.a in ids and link.b in ids)
    shared = story.shared() if story and links else {}
    return StoryAnswer(id=story.id if story else topic.id, title=lead.title, places=places, items=len(ordered),
                       trend=trend, first_seen=first, history=tuple(history), shared=shared, links=links,
                       link=safe_link(lead))
