"""What each MCP tool returns, as typed JSON (the tool's `outputSchema`); its text content is the same
answer worded for a person (`server.py`). URLs here are complete; the text shows them readable."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.answers.chat.facts import Fact
from agent.answers.queries.periods import Period
from agent.models import Trend
from agent.stories.answer import StoryAnswer

from ..platforms import platform_name
from ..sources.links import safe_url
from ..store.periods import SeenTopic

__all__ = ["CaptionOut", "CompareOut", "DigestOut", "GlassesPreview", "HeatOut", "HistoryOut", "Place", "SeenItem",
           "StoryDetail", "StoryItem", "StoryOut", "TrendingOut"]


class Place(BaseModel):
    platform: str = Field(description="source id, e.g. zhihu")
    name: str = Field(description="the platform in words, e.g. Zhihu")
    rank: int | None = Field(description="its place on that platform's own list, 1 = top")


class StoryItem(BaseModel):
    id: str = Field(description="the leading item's id; pass it to `story` for the whole story")
    story_id: str = Field(description="the cross-platform story's id (the same item on several lists)")
    title: str = Field(description="as the platform wrote it, in its own language")
    url: str | None = Field(description="the full link on the platform's own domain, when it is safe")
    platforms: list[Place] = Field(description="every platform that lists the story, best placed first")
    heat: float | None = Field(description="the leading item's raw heat on its own platform (scales differ)")
    trend: Trend
    first_seen: datetime | None = Field(description="when any of its items was first seen (UTC)")

    @classmethod
    def of(cls, fact: Fact, story_id: str) -> StoryItem:
        return cls(id=fact.topic.id, story_id=story_id, title=fact.title, url=fact.link,
                   platforms=[Place(platform=p.source, name=platform_name(p.source, "en"), rank=p.rank)
                              for p in fact.placements],
                   heat=fact.heat, trend=fact.trend, first_seen=fact.first_seen)


class TrendingOut(BaseModel):
    platform: str = Field(description="the platform asked for, or 'all'")
    order: Literal["platform rank", "fair heat"] = Field(
        description="a platform's own order, or across platforms by fair heat (each list's places, not raw heat)")
    hours: float | None = Field(default=None, description="for new or rising: the window looked at")
    items: list[StoryItem]


class StoryDetail(StoryItem):
    summary: str | None = Field(description="the platform's own excerpt, when it gives one")
    heat_history: list[float] = Field(description="the leading item's heat at each fetch, oldest first")
    items: int = Field(description="how many items on all platforms are this one story")
    why: str = Field(description="why its items are one story, in words (empty for a lone item)")
    shared: dict[str, list[str]] = Field(
        description="what its headlines share: numbers, names, wording, words")

    @classmethod
    def of(cls, answer: StoryAnswer, *, summary: str | None) -> StoryDetail:  # type: ignore[override]
        """The story answer every surface gives (`story_answer`), as typed JSON."""
        lead = answer.places[0] if answer.places else None
        return cls(id=lead.id if lead else answer.id, story_id=answer.id, title=answer.title, url=answer.link,
                   platforms=[Place(platform=p.source, name=platform_name(p.source, "en"), rank=p.rank)
                              for p in answer.places],
                   heat=lead.heat if lead else None, trend=answer.trend, first_seen=answer.first_seen,
                   summary=summary, heat_history=list(answer.history), items=answer.items, why=answer.why("en"),
                   shared={k: list(v) for k, v in answer.shared.items()})


class StoryOut(BaseModel):
    found: bool
    story: StoryDetail | None


class CaptionOut(BaseModel):
    profile: str
    lines: list[str] = Field(description="the lines as the display shows them")
    text: str


class GlassesPreview(BaseModel):
    show: bool = Field(description="whether a caption would appear")
    reason: Literal["shown", "replaced", "no_candidate", "not_enough_speech", "display_locked", "cooldown",
                    "duplicate"] = Field(description="the gate's reason: no_candidate = nothing passed the "
                                                     "relevance gate; not_enough_speech = too few characters")
    caption: CaptionOut | None
    match: StoryItem | None = Field(description="the story captioned; when silent, the nearest one (not shown)")
    score: float | None = Field(description="the match's ranking score")
    components: dict[str, float] = Field(description="the score's parts: dense, lexical, relevance, prior, …")
    shared_words: list[str] = Field(description="words of the line found in the match's title")


class DigestPlatform(BaseModel):
    source: str
    id: str
    rank: int | None
    heat: float | None
    normalised: float = Field(description="its place on its own list, 1.0 for #1")
    title: str
    url: str | None


class DigestEntry(BaseModel):
    cluster_id: str
    title: str
    platforms: list[DigestPlatform]
    heat: float
    score: float = Field(description="fair heat: each platform's best normalised heat, summed")
    trend: Trend
    history: list[float]
    why: dict[str, Any] = Field(description="why items of several platforms were merged into one story")


class DigestOut(BaseModel):
    generated_at: str
    since: str
    lang: str | None
    items: list[DigestEntry]


class PeriodOut(BaseModel):
    label: str = Field(description="the period as asked")
    since: datetime = Field(description="its start (UTC, inclusive)")
    until: datetime = Field(description="its end (UTC, exclusive)")

    @classmethod
    def of(cls, period: Period) -> PeriodOut:
        return cls(label=period.label, since=period.since, until=period.until)


class SeenItem(BaseModel):
    id: str = Field(description="the item's id (pass it to `heat_over_time`)")
    platform: str = Field(description="source id, e.g. weibo")
    name: str = Field(description="the platform in words")
    title: str
    url: str | None = Field(description="the full link on the platform's own domain, when it is safe")
    best_rank: int | None = Field(description="its best place on its list within the period, 1 = top")
    peak_heat: float | None = Field(description="its highest raw heat within the period (scales differ per platform)")
    first_seen: datetime = Field(description="its first listing within the period (UTC)")
    last_seen: datetime = Field(description="its last listing within the period (UTC)")
    fetches: int = Field(description="how many fetches listed it within the period")

    @classmethod
    def of(cls, seen: SeenTopic) -> SeenItem:
        return cls(id=seen.id, platform=seen.source, name=platform_name(seen.source, "en"), title=seen.title,
                   url=safe_url(seen.source, seen.url), best_rank=seen.best_rank, peak_heat=seen.peak_heat,
                   first_seen=datetime.fromisoformat(seen.first_at), last_seen=datetime.fromisoformat(seen.last_at),
                   fetches=seen.seen)


class HistoryOut(BaseModel):
    period: PeriodOut
    words: str
    items: list[SeenItem] = Field(description="matching items listed within the period, best placed first")
    cut: str | None = Field(default=None, description="why the search stopped short of the whole period, if it did")


class HeatPointOut(BaseModel):
    at: datetime = Field(description="when a fetch listed it (UTC)")
    rank: int | None
    heat: float | None


class HeatSeries(BaseModel):
    id: str
    platform: str
    title: str
    points: list[HeatPointOut] = Field(description="oldest first")


class HeatOut(BaseModel):
    found: bool
    story_id: str | None = None
    title: str | None = None
    series: list[HeatSeries] = Field(default_factory=list, description="one per item of the story, the lead first")


class Moved(BaseModel):
    item: SeenItem = Field(description="the item as listed in the second period")
    rank_before: int | None = Field(description="its best place in the first period")


class CompareOut(BaseModel):
    first: PeriodOut
    second: PeriodOut
    arrived: list[SeenItem] = Field(description="listed in the second period and not in the first")
    left: list[SeenItem] = Field(description="listed in the first period and not in the second")
    stayed: list[Moved] = Field(description="listed in both, best placed in the second first")
