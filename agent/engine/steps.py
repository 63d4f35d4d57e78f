"""The step registry: every step a workflow may name, each with typed params, input and output.

A step is `run(ctx, value, params) -> (value, detail)`: it takes the value the step before made
(agent/engine/values.py), returns the next one and a one-line detail for the run record, and
may raise `Stop(reason, value)` to end the run quietly: the gate does, most of the time. Each
step says which value types it accepts and which it makes, and the loader checks a workflow's
chain before it runs.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..captions.templates import caption_lang
from ..errors import ConfigError
from ..ranking.lexical import tokenize
from ..ranking.names_said import people_in
from ..ranking.query import RankQuery
from ..registry import Registry
from .values import Candidates, Captioned, Chosen, DigestMade, Fetched, Said, Silenced, Start, Value

if TYPE_CHECKING:
    from ..ranking import Ranked
    from ..ranking.window import ConversationWindow, Utterance
    from .deps import StepDeps

__all__ = ["STEPS", "RunContext", "Step", "Stop"]


class Stop(Exception):  # noqa: N818 - a control-flow signal, not an error
    """End the run early and quietly (e.g. the gate decided to stay silent), with the run's last value."""

    def __init__(self, reason: str, value: Value | None = None) -> None:
        self.reason, self.value = reason, value
        super().__init__(reason)


@dataclass(frozen=True)
class RunContext:
    deps: StepDeps
    workflow: str
    trigger: str


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Step:
    name: str
    Params: type[BaseModel]
    run: Callable[[RunContext, Any, Any], Awaitable[tuple[Value, str]]]
    doc: str
    accepts: tuple[type, ...] = (Start,)
    makes: type | None = None  # None: passes on the type it was given

    def inputs(self, params: BaseModel) -> tuple[type, ...]:
        """The value types this step accepts with these params."""
        narrow = getattr(params, "accepts", None)
        return narrow() if callable(narrow) else self.accepts


# --- fetch -----------------------------------------------------------------
class FetchParams(_Params):
    sources: list[str] | None = Field(default=None, description="sources to fetch; all when omitted")


async def fetch(ctx: RunContext, _: Start, p: FetchParams) -> tuple[Fetched, str]:
    statuses = await ctx.deps.fetch(p.sources)  # the scheduler's own fetch job; the index follows
    ok = sum(status == "ok" for status in statuses.values())
    return Fetched(statuses), f"{ok}/{len(statuses)} sources ok"


# --- rank ------------------------------------------------------------------
class RankParams(_Params):
    top_k: int = Field(default=RankQuery.top_k, ge=1, le=50)
    prior: bool = Field(default=RankQuery.prior, description="favour hot and rising topics a little")
    mmr: bool = Field(default=RankQuery.mmr, description="diversify the top-k")
    latest_top_k: int = Field(default=10, ge=0, le=100, description=(
        "a candidate must also be among this many relevant matches of the newest utterance alone "
        "(0 = off): the window gives context, but new captions need new words about them"))

    def query(self, window: ConversationWindow, *, gate_offset: float, latest: str,
              exclude: frozenset[str] = frozenset()) -> RankQuery:
        """The live decision's ranking request, declared once: the rank step and the glance preview ask it."""
        return RankQuery(text=window, top_k=self.top_k, prior=self.prior, mmr=self.mmr, exclude=exclude, gate=True,
                         gate_offset=gate_offset, latest=latest, latest_top_k=self.latest_top_k)


async def rank(ctx: RunContext, said: Said, p: RankParams) -> tuple[Candidates, str]:
    session = said.session
    if said.release:  # the line was ranked when it was said; the held-back story is the gate's to add
        return Candidates(said, []), "no new line: the story held back asks again"
    plan = session.gate.plan(said.now)  # asked once, before any model call: a line that cannot show costs none
    if plan.quiet is not None:
        raise Stop(plan.quiet.reason, Silenced(said, plan.quiet))
    # novelty: stories shown recently are suppressed in ranking too, not only by the gate; but for the
    # caption still on screen, which a line may go on about (the gate then holds the display for it)
    exclude = ctx.deps.members_of(set(plan.recent) - {plan.showing})
    # one ranking call: the relevance gate decides here, once; the session gate only times what passes
    # the newest sentence: a recogniser's pieces of it are joined in the window
    ranked = await ctx.deps.rank(p.query(session.window, gate_offset=session.gate.policy.relevance_offset,
                                         latest=session.window.newest() or said.text, exclude=frozenset(exclude)))
    detail = f"{len(ranked)} candidates" + (f", best {ranked[0].score:.3f}" if ranked else "")
    return Candidates(said, ranked), detail


# --- filter ----------------------------------------------------------------
class FilterParams(_Params):
    include: list[str] = Field(default_factory=list, description="keep only items containing one of these")
    exclude: list[str] = Field(default_factory=list, description="drop items containing any of these")
    regex: str | None = Field(default=None, description="keep only titles matching this regular expression")
    sources: list[str] | None = None
    key: Literal["ranked"] = Field(default="ranked", description="what is filtered: the ranked candidates")


async def filter_items(ctx: RunContext, found: Candidates, p: FilterParams) -> tuple[Candidates, str]:
    try:
        pattern = re.compile(p.regex) if p.regex else None
    except re.error as exc:
        raise ConfigError(f"filter regex {p.regex!r} is invalid: {exc}") from None
    kept = []
    for item in found.ranked:
        topic = item.topic
        text = f"{topic.title} {topic.summary or ''}".casefold()
        if p.include and not any(w.casefold() in text for w in p.include):
            continue
        if any(w.casefold() in text for w in p.exclude):
            continue
        if pattern and not pattern.search(text):
            continue
        if p.sources and topic.source not in p.sources:
            continue
        kept.append(item)
    return Candidates(found.utterance, kept), f"kept {len(kept)}/{len(found.ranked)}"


# --- gate ------------------------------------------------------------------
class GateParams(_Params):
    pass


async def gate(ctx: RunContext, found: Candidates, p: GateParams) -> tuple[Chosen, str]:
    said = found.utterance
    story_key = await _stories_for_the_display(ctx, said, found.ranked)
    decision, chosen = said.session.gate.choose(found.ranked, story_key, said.now,
                                                again=ctx.deps.ranked_again, release=said.release)
    if chosen is None:
        raise Stop(decision.reason, Silenced(said, decision))
    return Chosen(said, decision, chosen), decision.reason


async def _stories_for_the_display(ctx: RunContext, said: Said, ranked: list[Ranked]) -> Callable[[str], str]:
    """Each candidate's story, as the gate reads it. While a caption is on screen, a headline naming a person
    that caption's story names is of that story for the display: lists tell one meme in headlines the
    story links do not join (a quip about a comedian's prop on one list, what he said backstage on
    another), and a line going on about it would otherwise replace the caption with the other headline.
    So is a headline the newest line meets only on words said under the caption (`_said_under_the_caption`):
    the line says nothing new of it, it goes on about what the table was already saying."""
    story_key = ctx.deps.story_key
    on = said.session.gate.showing(said.now)
    if on is None or not ranked:
        return story_key

    gate = said.session.gate
    lines = said.session.window.utterances()
    said_before = _said_under_the_caption(lines, gate.last_shown_at)
    newest = set(tokenize(lines[-1].text)) if lines else set()

    def read() -> Callable[[str], str]:
        shown: set[str] = set()
        for topic_id in ctx.deps.members_of({on.story}) | {on.topic_id}:
            found = ctx.deps.ranked_again(topic_id, 0.0)
            if found is not None:
                shown |= people_in(found.topic.title)
        same = {r.topic.id for r in ranked if shown and people_in(r.topic.title) & shown}
        if said_before:
            for r in ranked:
                met = newest & set(tokenize(r.topic.title))
                if met and met <= said_before:
                    same.add(r.topic.id)
        return lambda topic_id: on.story if topic_id in same else story_key(topic_id)

    return await asyncio.to_thread(read)  # titles new to the tagger take a millisecond each


def _said_under_the_caption(lines: list[Utterance], shown_at: float) -> set[str]:
    """The terms of the lines said while the caption on screen was up, and of the line before it went up
    (the newest line aside)."""
    earlier = lines[:-1]
    before = [u.ts for u in earlier if u.ts <= shown_at]
    since = max(before) if before else shown_at
    return {t for u in earlier if u.ts >= since for t in tokenize(u.text)}


# --- caption ---------------------------------------------------------------
class CaptionParams(_Params):
    profile: str | None = Field(default=None, description="display profile; the session's when omitted")
    ttl_ms: int | None = Field(default=None, ge=1000, le=120_000)


async def caption(ctx: RunContext, picked: Chosen, p: CaptionParams) -> tuple[Captioned, str]:
    session = picked.utterance.session
    # the title stays the topic's own; its meta line is in the language the wearer just spoke
    made = ctx.deps.compose_caption(picked.chosen, profile=p.profile or session.profile, ttl_ms=p.ttl_ms,
                                    session_id=session.id, lang=caption_lang(picked.utterance.text))
    session.gate.reading(made.read_s, on_screen_s=made.ttl_ms / 1000)
    return Captioned(picked.utterance, picked.decision, picked.chosen, made), made.text.replace("\n", " / ")


# --- summarize (optional LLM wording, template fallback) --------------------
class SummarizeParams(_Params):
    timeout_s: float = Field(default=2.0, gt=0, le=30)


async def summarize(ctx: RunContext, done: Captioned, p: SummarizeParams) -> tuple[Captioned, str]:
    gloss = await ctx.deps.gloss(done.chosen.topic.title, done.utterance.text, timeout_s=p.timeout_s)
    if gloss is None:
        return done, "kept template (no LLM configured, or it was slow or failed)"
    made = done.caption
    reworded = ctx.deps.compose_caption(done.chosen, profile=made.profile, ttl_ms=made.ttl_ms,
                                        session_id=made.session_id, summary=gloss,
                                        lang=caption_lang(done.utterance.text))
    return Captioned(done.utterance, done.decision, done.chosen, reworded), "summarized"


# --- push ------------------------------------------------------------------
class PushParams(_Params):
    display: str = Field(default="session", description="'session' (the session's displays) or an adapter name")
    key: Literal["caption", "digest"] = Field(default="caption", description="what the step before made")

    def accepts(self) -> tuple[type, ...]:
        return (DigestMade,) if self.key == "digest" else (Captioned,)


async def push(ctx: RunContext, made: Captioned | DigestMade, p: PushParams) -> tuple[Captioned | DigestMade, str]:
    item = made.caption if isinstance(made, Captioned) else made.digest
    delivered = await ctx.deps.push(item, display=p.display)
    return made, f"pushed to {', '.join(delivered) or 'nothing'}"


# --- digest ----------------------------------------------------------------
class DigestParams(_Params):
    lang: Literal["zh", "en", "ja"] | None = None
    limit: int = Field(default=20, ge=1, le=200)
    since_hours: float = Field(default=24, gt=0)
    format: Literal["md", "html", "json"] = "md"
    path: str | None = Field(default=None, description="file to write, relative to the data dir; may use {date}")
    notify: int = Field(default=10, ge=0, le=50, description=(
        "push the top this-many stories to the push channels (TRENDLENS_NOTIFY_URLS) as one message; 0: none"))


async def digest(ctx: RunContext, _: Start | Fetched, p: DigestParams) -> tuple[DigestMade, str]:
    from agent.answers.digest import build_digest, render_digest

    from ..models import utcnow

    view = ctx.deps.story_view()  # the stories and occasions the index published, read as they are
    d = await asyncio.to_thread(build_digest, ctx.deps.store, lang=p.lang, limit=p.limit,
                                since_hours=p.since_hours, clusters=ctx.deps.cluster_list() or None,
                                view=view if view.stories else None)
    rendered = render_digest(d, p.format)
    made = DigestMade(d, rendered)
    pushed = ""
    if p.notify:
        from ..notify import digest_message

        channels = await ctx.deps.notify(digest_message(d, limit=p.notify, lang=p.lang or "zh"))
        pushed = f"; pushed to {', '.join(channels)}" if channels else ""
    if p.path:
        target = ctx.deps.data_dir / p.path.format(date=utcnow().date().isoformat())
        if not target.resolve().is_relative_to(ctx.deps.data_dir.resolve()):
            raise ConfigError(f"digest path {p.path!r} leaves the data directory")
        await asyncio.to_thread(_write, target, rendered)
        return made, f"{len(d.items)} items → {target}{pushed}"
    return made, f"{len(d.items)} items{pushed}"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # readers never see a half-written digest


#: The one registry of steps: a second step of one name is refused here, not silently kept.
STEPS: Registry[Step] = Registry("step", (
    (s.name, s)
    for s in (
        Step("fetch", FetchParams, fetch, "fetch sources once and refresh the ranking index",
             (Start,), Fetched),
        Step("rank", RankParams, rank, "rank current topics against the session's conversation",
             (Said,), Candidates),
        Step("filter", FilterParams, filter_items, "keep/drop candidates by keywords, regex or source",
             (Candidates,)),
        Step("gate", GateParams, gate, "decide whether to show the best candidate now",
             (Candidates,), Chosen),
        Step("caption", CaptionParams, caption, "compose a caption that fits the display profile",
             (Chosen,), Captioned),
        Step("summarize", SummarizeParams, summarize, "reword the caption with the configured LLM, if any",
             (Captioned,)),
        Step("push", PushParams, push, "send the caption or digest to displays", (Captioned, DigestMade)),
        Step("digest", DigestParams, digest, "build the digest of top topics; optionally write it to a file",
             (Start, Fetched), DigestMade),
    )
))
