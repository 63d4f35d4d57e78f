"""The MCP server: TrendLens's answers as tools and resources, for desktop agents (stdio) and for
agents that reach the service (`/mcp`, streamable HTTP behind the API key).

Each tool calls the one implementation of its answer (`agent.answers.queries`), returns it as typed JSON
(`schemas.py`, the tool's outputSchema, with full URLs) and as text a person reads (the chat's own
wording, links readable). Tool descriptions are written for the model that picks the tool.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from agent.answers.chat.answers import render_fresh, render_hottest, render_nothing, render_platform
from agent.answers.chat.facts import Fact
from agent.answers.digest import Digest
from agent.answers.queries import (
    digest_window,
    fresh_stories,
    glance,
    history,
    hottest_stories,
    platform_list,
    source_statuses,
    story_about,
    story_by_id,
    told,
    utterance_rank_params,
)

from ..captions.profiles import DEFAULT_PROFILE, PROFILES
from ..errors import InputError
from ..live.gating import Frequency
from ..platforms import find_platform, platform_name, run_time_platforms
from ..sources import AGGREGATOR_NAMES, REGISTRY
from ..text import MAX_TEXT_CHARS
from .schemas import (
    CaptionOut,
    CompareOut,
    DigestOut,
    GlassesPreview,
    HeatOut,
    HeatPointOut,
    HeatSeries,
    HistoryOut,
    Moved,
    PeriodOut,
    SeenItem,
    StoryDetail,
    StoryItem,
    StoryOut,
    TrendingOut,
)

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

    from ..runtime import Runtime

__all__ = ["PLATFORM_CHOICES", "build_server"]

RuntimeGetter = Callable[[], Awaitable["Runtime"]]
"""How a tool reaches the runtime when it is called (it may wait for the runtime's first lists)."""

INSTRUCTIONS = (
    "TrendLens knows what is trending right now on Chinese and English platforms (Weibo, Zhihu, Baidu, Douyin, "
    "Bilibili, Toutiao, Tieba, V2EX, Hacker News, Reddit, Google Trends, GitHub, Wikipedia) and merges one "
    "event listed on several platforms into one story. Titles stay in their platform's language. Start with "
    "`trending` (all platforms, or one), follow a story with `story` (by id or words), ask `new_or_rising` "
    "for what just appeared, `digest` for a time window, and `glasses_preview` for what smart glasses would "
    "caption for a line of conversation. The kept history answers `search_history` (words within a period), "
    "`heat_over_time` (one story's places and heat at each fetch) and `compare_periods` (what arrived and left).")

# "feed" is the reader for the operator's own feeds, and an aggregator the reader of other sites' lists:
# neither is a platform one can ask for by name (an aggregator's own platforms are accepted when asked)
PLATFORM_CHOICES: tuple[str, ...] = ("all", *(name for name in REGISTRY if name not in ("feed", *AGGREGATOR_NAMES)))
_PLATFORM_DOC = ("'all' for every platform, else one platform's source id: " + ", ".join(PLATFORM_CHOICES[1:])
                 + " (its usual name, e.g. 'Hacker News' or '知乎', is accepted too)")

Platform = Annotated[str, Field(description=_PLATFORM_DOC, json_schema_extra={"enum": list(PLATFORM_CHOICES)})]
Lang = Annotated[Literal["en", "zh"], Field(
    description="language of the text answer (headings, platform names); titles keep their own language")]
Limit = Annotated[int, Field(ge=1, le=50, description="how many stories at most")]
Period = Annotated[str, Field(min_length=1, max_length=60, description=(
    "a span of time in words or dates: today/今天, yesterday/昨天, this week/本周, last week/上周, this month/本月, "
    "last 7 days/最近7天, last 24 hours/过去24小时, 2025-06-07, or 2025-06-01..2025-06-07 (UTC days)"))]
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                             open_world_hint=False)


def _platform(value: str) -> str | None:
    """A source id (None for all platforms) from the id or the platform's usual name."""
    v = value.strip()
    if v.lower() in ("all", "", "*"):
        return None
    if v in PLATFORM_CHOICES or v in run_time_platforms():
        return v
    found = find_platform(v)
    if found is not None and found[1].casefold() == v.casefold():
        return found[0].source
    raise ToolError(f"unknown platform {value!r}; choose one of: {', '.join(PLATFORM_CHOICES)}")


def _result(text: str, data: BaseModel) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=text)], structured_content=data.model_dump(mode="json"))


def _items(chat: ChatDeps, facts: list[Fact]) -> list[StoryItem]:
    return [StoryItem.of(f, chat.index.story_key(f.topic.id)) for f in facts]


def _digest_text(d: Digest, limit: int = 10) -> str:
    """The digest as lines a person reads: title, where it is listed, fair heat, trend (links in the JSON)."""
    if not d.items:
        return f"No stories since {d.since[:16].replace('T', ' ')} UTC yet."
    lines = [f"Digest since {d.since[:16].replace('T', ' ')} UTC ({len(d.items)} stories):"]
    for n, item in enumerate(d.items[:limit], 1):
        where = ", ".join(f"{platform_name(p['source'], 'en')} #{p['rank']}" if p["rank"] else
                          platform_name(p["source"], "en") for p in item.platforms[:4])
        trend = "" if item.trend == "steady" else f", {item.trend}"
        lines.append(f"{n}. {item.title} — {where}; fair heat {item.score:.2f}{trend}")
    if len(d.items) > limit:
        lines.append(f"… and {len(d.items) - limit} more in the structured result.")
    return "\n".join(lines)


def build_server(get_runtime: RuntimeGetter) -> MCPServer:
    """The MCP server over the runtime `get_runtime` gives when a tool is called (it may wait for the
    runtime to have its first lists: the stdio server answers `initialize` before it has any)."""
    server: MCPServer = MCPServer("trendlens", title="TrendLens 热梗透视镜", instructions=INSTRUCTIONS,
                                  version="0.1.0")
    _add_trending(server, get_runtime)
    _add_story(server, get_runtime)
    _add_glasses_preview(server, get_runtime)
    _add_new_or_rising(server, get_runtime)
    _add_digest(server, get_runtime)
    _add_search_history(server, get_runtime)
    _add_heat_over_time(server, get_runtime)
    _add_compare_periods(server, get_runtime)
    _add_digest_today(server, get_runtime)
    _add_sources(server, get_runtime)
    return server


def _add_trending(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="Trending now", annotations=_READ_ONLY)
    async def trending(platform: Platform = "all", limit: Limit = 10,
                       lang: Lang = "en") -> Annotated[CallToolResult, TrendingOut]:
        """What is trending right now. With platform='all': the hottest stories across every platform, on
        fair heat (each item scores by its place on its own list, so Weibo's millions and V2EX's replies
        compare; a story on several lists scores on each). With one platform: that platform's own list in its
        own rank order. Each item has an `id` to pass to `story`."""
        chat = (await get_runtime()).deps
        source = _platform(platform)
        if source is None:
            facts = await hottest_stories(chat, limit=limit)
            text = render_hottest(facts, lang, "chat")
        else:
            facts = await platform_list(chat, source, limit=limit)
            text = render_platform(source, facts, lang, "chat", top_only=False)
        order: Literal["platform rank", "fair heat"] = "fair heat" if source is None else "platform rank"
        return _result(text, TrendingOut(platform=source or "all", order=order, items=_items(chat, facts)))


def _add_story(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="One story", annotations=_READ_ONLY)
    async def story(words: Annotated[str | None, Field(
                        max_length=500, description="words of the title, in any language (e.g. '关税' or a "
                                                    "pasted title); the best-placed matching story is returned")]
                    = None,
                    id: Annotated[str | None, Field(
                        max_length=200, description="an `id` or `story_id` from another tool's result")] = None,
                    lang: Lang = "en") -> Annotated[CallToolResult, StoryOut]:
        """One story in full: every platform that lists it and its place there, its heat and how the heat
        moved since it was first seen, its trend (new, rising, falling, steady), when it first appeared, why
        its items on several platforms are one story, and its link. Give `id` (exact, from `trending`,
        `new_or_rising` or `digest`) or `words`; with neither, the day's biggest story (with both, `id`)."""
        chat = (await get_runtime()).deps
        id = (id or "").strip() or None
        words = (words or "").strip() or None
        if id is not None:
            fact = await story_by_id(chat, id)
        elif words is not None:
            fact = await story_about(chat, words)
        else:  # every call the schema admits is answered: no argument asks for the biggest story
            top = await hottest_stories(chat, limit=1)
            fact = top[0] if top else None
        if fact is None:
            text = (f"No current story has the id {id!r}." if id else render_nothing(lang, (words or "")[:80]))
            return _result(text, StoryOut(found=False, story=None))
        # the chat's own answer (`queries.told`): an item asked for by its id leads its story
        answer = await told(chat, fact.topic, asked=fact.topic.id == (id or "").strip())
        lead = chat.index.stored.get(answer.places[0].id) if answer.places else None
        detail = StoryDetail.of(answer, summary=(lead.topic if lead else fact.topic).summary)
        return _result(answer.text(lang, "chat"), StoryOut(found=True, story=detail))


def _add_glasses_preview(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="What would the glasses show", annotations=_READ_ONLY)
    async def glasses_preview(
            line: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS,
                                       description="one line of conversation, as speech-to-text would give it")],
            profile: Annotated[Literal[tuple(PROFILES)], Field(  # type: ignore[valid-type]
                description="the display the caption is fitted to")] = DEFAULT_PROFILE,
            frequency: Annotated[Frequency, Field(
                description="the wearer's caption frequency: low raises the relevance bar, high lowers it")]
            = "medium") -> Annotated[CallToolResult, GlassesPreview]:
        """What TrendLens would put on smart glasses if this line were said at the table: the trending story
        it matches, the caption lines fitted to the display, the score and why (score parts, shared words) —
        or silence, with the nearest story and why it was not enough. Runs the live caption loop's own
        ranking and gate on a fresh session; nothing is shown on any display and the line is not kept."""
        runtime = await get_runtime()
        try:
            seen = await glance(runtime.deps, line, rank=utterance_rank_params(runtime.engine), profile=profile,
                                frequency=frequency)
        except InputError as exc:
            raise ToolError(f"line: {exc}") from None
        match = StoryItem.of(seen.fact, runtime.index.story_key(seen.fact.topic.id)) if seen.fact else None
        caption = (CaptionOut(profile=seen.caption.profile, lines=list(seen.caption.lines), text=seen.caption.text)
                   if seen.caption else None)
        score = round(seen.match.score, 4) if seen.match else None
        parts = {k: round(v, 4) for k, v in seen.match.components.items()} if seen.match else {}
        shared = ("; words in common: " + ", ".join(seen.shared_words)) if seen.shared_words else ""
        if seen.show and seen.caption and seen.match:
            text = (f"The glasses would show ({seen.caption.profile}):\n{seen.caption.text}\n"
                    f"Matched 「{seen.match.topic.title}」 with score {score}{shared}.")
        elif seen.reason == "not_enough_speech":
            text = "Silent: the line is too short for the glasses to decide on."
        elif seen.match:
            text = (f"Silent: no trending story passes the relevance gate for this line. The nearest is "
                    f"「{seen.match.topic.title}」 (score {score}{shared}), not close enough to caption.")
        else:
            text = "Silent: there are no trending topics to match yet."
        return _result(text, GlassesPreview(show=seen.show, reason=seen.reason, caption=caption,
                                            match=match, score=score, components=parts,
                                            shared_words=list(seen.shared_words)))


def _add_new_or_rising(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="New or rising", annotations=_READ_ONLY)
    async def new_or_rising(hours: Annotated[float, Field(gt=0, le=48, description="the window, in hours")] = 6,
                            platform: Platform = "all", limit: Limit = 10,
                            lang: Lang = "en") -> Annotated[CallToolResult, TrendingOut]:
        """Stories that first appeared, or whose heat rose, within the last `hours` (default 6), hottest first
        on fair heat; on one platform or all. Use it for "what's new" or "what's taking off"."""
        chat = (await get_runtime()).deps
        source = _platform(platform)
        facts = await fresh_stories(chat, hours=hours, limit=limit, sources=(source,) if source else None)
        text = render_fresh(facts, lang, "chat", hours=hours, source=source)
        return _result(text, TrendingOut(platform=source or "all", order="fair heat", hours=hours,
                                         items=_items(chat, facts)))


def _add_digest(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="Digest", annotations=_READ_ONLY)
    async def digest(hours: Annotated[float, Field(gt=0, le=24 * 14, description=(
                         "the window: stories seen within the last `hours`"))] = 24,
                     since: Annotated[str | None, Field(max_length=40, description=(
                         "instead of `hours`: an ISO 8601 start time, e.g. 2025-04-16T08:00:00Z"))] = None,
                     topic_lang: Annotated[Literal["zh", "en", "ja", "other"] | None, Field(
                         description="only stories whose titles are in this language")] = None,
                     limit: Annotated[int, Field(ge=1, le=200, description="how many stories at most")] = 20,
                     ) -> Annotated[CallToolResult, DigestOut]:
        """The digest of a time window: stories merged across platforms, hottest first on fair heat (one busy
        platform cannot fill the top), each with every platform's rank, raw heat and link, its trend, its heat
        history and why its items were merged."""
        start = None
        if since:
            try:
                start = datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
            except ValueError:
                raise ToolError(f"since: {since!r} is not an ISO 8601 time (e.g. 2025-04-16T08:00:00Z)") from None
            start = start if start.tzinfo else start.replace(tzinfo=UTC)
        runtime = await get_runtime()
        d = await digest_window(runtime.store, runtime.index.cluster_list(), since=start, since_hours=hours,
                                lang=topic_lang, limit=limit, view=runtime.index.view.story_view)
        return _result(_digest_text(d), DigestOut.model_validate(d.public()))


def _add_search_history(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="Search the kept history", annotations=_READ_ONLY)
    async def search_history(
            words: Annotated[str, Field(min_length=1, max_length=300, description=(
                "words a title must hold, in the watch lists' syntax: any plain word, every +word, no !word "
                "(Chinese by substring, English by whole word), e.g. '关税 +美国 !广告'"))],
            period: Period = "last 7 days", limit: Limit = 10) -> Annotated[CallToolResult, HistoryOut]:
        """Items whose titles match `words`, listed by any platform within `period` — also items no longer on
        any list (the kept history, up to the retention period). Each with its best place and peak heat in the
        period and its `id` for `heat_over_time`. Use it for "was X trending last week?"."""
        runtime = await get_runtime()
        try:
            span, found = await history.search_history(runtime.store, words, period, now=datetime.now(UTC),
                                                       limit=limit)
        except InputError as exc:
            raise ToolError(str(exc)) from None
        items = [SeenItem.of(s) for s in found]
        lines = [f"{i + 1}. {s.title} — {s.name} best #{s.best_rank}" if s.best_rank else f"{i + 1}. {s.title} — "
                 f"{s.name}" for i, s in enumerate(items)]
        text = (f"Listed {span.label} with “{words}”:\n" + "\n".join(lines)) if items else (
            f"Nothing listed {span.label} has “{words}” in its title.")
        if found.cut:
            text += f"\n(not the whole period: {found.cut})"
        return _result(text, HistoryOut(period=PeriodOut.of(span), words=words, items=items, cut=found.cut))


def _add_heat_over_time(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="Heat over time", annotations=_READ_ONLY)
    async def heat_over_time(
            id: Annotated[str | None, Field(max_length=200, description=(
                "an `id` or `story_id` from another tool's result"))] = None,
            words: Annotated[str | None, Field(max_length=500, description=(
                "instead of `id`: words of a current title; the best-placed matching story"))] = None,
            ) -> Annotated[CallToolResult, HeatOut]:
        """One story's place and raw heat at every fetch that listed it, per platform item, oldest first: how it
        rose and fell. Give `id` (also an item no longer listed, from `search_history`) or `words`; with
        neither, the day's biggest story."""
        runtime = await get_runtime()
        chat = runtime.deps
        id = (id or "").strip() or None
        words = (words or "").strip() or None
        fact = (await story_by_id(chat, id) if id else await story_about(chat, words) if words
                else next(iter(await hottest_stories(chat, limit=1)), None))
        if fact is not None:
            cluster = chat.index.clusters.get(fact.topic.id)
            members = [fact.topic, *(m for m in (cluster.members if cluster else ()) if m.id != fact.topic.id)]
            story_id = runtime.index.story_key(fact.topic.id)
        elif id and (kept := await asyncio.to_thread(runtime.store.get, id)) is not None:
            members, story_id = [kept.topic], id  # no longer listed: its own history
        else:
            return _result(f"No story has the id {id!r}." if id else "No current story matches.", HeatOut(found=False))
        lines = await history.heat_over_time(runtime.store, members)
        series = [HeatSeries(id=line.topic.id, platform=line.topic.source, title=line.topic.title,
                             points=[HeatPointOut(at=datetime.fromisoformat(p.observed_at), rank=p.rank, heat=p.heat)
                                     for p in line.points]) for line in lines]
        lead = series[0]
        moves = " → ".join(f"#{p.rank}" if p.rank else "—" for p in lead.points[-8:])
        text = (f"「{lead.title}」 on {platform_name(lead.platform, 'en')}: {len(lead.points)} fetches"
                + (f", places {moves}" if moves else "") + (f"; {len(series) - 1} more items of the story"
                                                             if len(series) > 1 else ""))
        return _result(text, HeatOut(found=True, story_id=story_id, title=lead.title, series=series))


def _add_compare_periods(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.tool(title="Compare two periods", annotations=_READ_ONLY)
    async def compare_periods(first: Period = "yesterday", second: Period = "today", platform: Platform = "all",
                              limit: Limit = 10) -> Annotated[CallToolResult, CompareOut]:
        """What the lists held in `second` against `first`: items that arrived, items that left, and items on
        both with their best place in each. E.g. first='last week', second='this week'."""
        runtime = await get_runtime()
        try:
            c = await history.compare_periods(runtime.store, first, second, now=datetime.now(UTC), limit=limit,
                                              source=_platform(platform))
        except InputError as exc:
            raise ToolError(str(exc)) from None
        out = CompareOut(first=PeriodOut.of(c.first), second=PeriodOut.of(c.second),
                         arrived=[SeenItem.of(s) for s in c.arrived], left=[SeenItem.of(s) for s in c.left],
                         stayed=[Moved(item=SeenItem.of(b), rank_before=a.best_rank) for a, b in c.stayed])
        text = (f"{c.second.label} against {c.first.label}: {len(out.arrived)} arrived, {len(out.left)} left, "
                f"{len(out.stayed)} on both."
                + "".join(f"\n+ {s.title} ({s.name})" for s in out.arrived[:5])
                + "".join(f"\n- {s.title} ({s.name})" for s in out.left[:5]))
        return _result(text, out)


def _add_digest_today(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.resource("trendlens://digest/today", name="digest-today", title="Today's digest",
                     mime_type="application/json",
                     description="The digest of the last 24 hours (JSON, as the `digest` tool returns it).")
    async def digest_today() -> str:
        runtime = await get_runtime()
        d = await digest_window(runtime.store, runtime.index.cluster_list(), since_hours=24,
                                view=runtime.index.view.story_view)
        return json.dumps(DigestOut.model_validate(d.public()).model_dump(mode="json"), ensure_ascii=False)


def _add_sources(server: MCPServer, get_runtime: RuntimeGetter) -> None:
    @server.resource("trendlens://sources", name="sources", title="Sources and their health",
                     mime_type="application/json",
                     description="Every source with its health: last success, item count, failures, last error.")
    async def sources() -> str:
        runtime = await get_runtime()
        statuses = await source_statuses(runtime.collector.sources, runtime.store,
                                         replaying=runtime.collector.replaying)
        return json.dumps({"items": [s.public() for s in statuses],
                           "data": "synthetic demo snapshot" if runtime.collector.replaying else "live"},
                          ensure_ascii=False)
