"""The step registry: every step a workflow may name, each with typed params.

A step is `run(ctx, params)`; it reads and writes `ctx.data` (the run's
blackboard: utterance, session, ranked, decision, caption, digest...) and may
raise `Stop(reason)` to end the run quietly — the gate does, most of the time.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError

if TYPE_CHECKING:
    from .deps import StepDeps

__all__ = ["STEPS", "RunContext", "Step", "Stop"]


class Stop(Exception):  # noqa: N818 - a control-flow signal, not an error
    """End the run early and quietly (e.g. the gate decided to stay silent)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@dataclass
class RunContext:
    deps: StepDeps
    workflow: str
    trigger: str
    data: dict[str, Any] = field(default_factory=dict)

    def need(self, key: str, step: str) -> Any:
        if key not in self.data:
            raise ConfigError(f"step {step!r} needs {key!r}, which no earlier step produced")
        return self.data[key]


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Step:
    name: str
    Params: type[BaseModel]
    run: Callable[[RunContext, Any], Awaitable[str | None]]
    doc: str


# --- fetch -----------------------------------------------------------------
class FetchParams(_Params):
    sources: list[str] | None = Field(default=None, description="sources to fetch; all when omitted")


async def fetch(ctx: RunContext, p: FetchParams) -> str:
    statuses = await ctx.deps.fetch(p.sources)  # the scheduler's own fetch job; the index follows
    ctx.data["fetch"] = statuses
    ok = sum(status == "ok" for status in statuses.values())
    return f"{ok}/{len(statuses)} sources ok"


# --- rank ------------------------------------------------------------------
class RankParams(_Params):
    top_k: int = Field(default=5, ge=1, le=50)
    prior: bool = Field(default=True, description="favour hot and rising topics a little")
    mmr: bool = Field(default=True, description="diversify the top-k")
    latest_top_k: int = Field(default=10, ge=0, le=100, description=(
        "a candidate must also be among this many relevant matches of the newest utterance alone "
        "(0 = off): the window gives context, but new captions need new words about them"))


async def rank(ctx: RunContext, p: RankParams) -> str:
    session = ctx.need("session", "rank")
    early = session.gate.blocked(ctx.data.get("now", 0.0))
    if early is not None:
        ctx.data["decision"] = early
        raise Stop(early.reason)
    # novelty: stories shown recently are suppressed in ranking too, not only by the gate
    shown = session.gate.recently_shown(ctx.data.get("now", 0.0))
    exclude = ctx.deps.members_of(shown)
    # one ranking call: the relevance gate decides here, once; the session gate only times what passes
    ranked = await ctx.deps.rank(session.window, top_k=p.top_k, prior=p.prior, mmr=p.mmr, exclude=exclude,
                                    gate=True, gate_offset=session.gate.policy.relevance_offset,
                                    latest=ctx.data.get("utterance"), latest_top_k=p.latest_top_k)
    ctx.data["ranked"] = ranked
    return f"{len(ranked)} candidates" + (f", best {ranked[0].score:.3f}" if ranked else "")


# --- filter ----------------------------------------------------------------
class FilterParams(_Params):
    include: list[str] = Field(default_factory=list, description="keep only items containing one of these")
    exclude: list[str] = Field(default_factory=list, description="drop items containing any of these")
    regex: str | None = Field(default=None, description="keep only titles matching this regular expression")
    sources: list[str] | None = None
    key: Literal["ranked", "topics"] = "ranked"


async def filter_items(ctx: RunContext, p: FilterParams) -> str:
    items = ctx.need(p.key, "filter")
    try:
        pattern = re.compile(p.regex) if p.regex else None
    except re.error as exc:
        raise ConfigError(f"filter regex {p.regex!r} is invalid: {exc}") from None

    def title_of(item: Any) -> tuple[str, str]:
        topic = getattr(item, "topic", item)
        topic = getattr(topic, "topic", topic)
        return f"{topic.title} {topic.summary or ''}".casefold(), topic.source

    kept = []
    for item in items:
        text, source = title_of(item)
        if p.include and not any(w.casefold() in text for w in p.include):
            continue
        if any(w.casefold() in text for w in p.exclude):
            continue
        if pattern and not pattern.search(text):
            continue
        if p.sources and source not in p.sources:
            continue
        kept.append(item)
    ctx.data[p.key] = kept
    return f"kept {len(kept)}/{len(items)}"


# --- gate ------------------------------------------------------------------
class GateParams(_Params):
    pass


async def gate(ctx: RunContext, p: GateParams) -> str:
    from ..gating import Candidate

    session = ctx.need("session", "gate")
    ranked = ctx.data.get("ranked", [])
    key = ctx.deps.story_key
    decision = session.gate.decide([Candidate(topic_id=r.topic.id, score=r.score, key=key(r.topic.id)) for r in ranked],
                                   ctx.data.get("now", 0.0))
    ctx.data["decision"] = decision
    if not decision.show:
        raise Stop(decision.reason)
    ctx.data["chosen"] = next(r for r in ranked if r.topic.id == decision.topic_id)
    return decision.reason


# --- caption ---------------------------------------------------------------
class CaptionParams(_Params):
    profile: str | None = Field(default=None, description="display profile; the session's when omitted")
    ttl_ms: int | None = Field(default=None, ge=1000, le=120_000)


async def caption(ctx: RunContext, p: CaptionParams) -> str:
    chosen = ctx.need("chosen", "caption")
    session = ctx.data.get("session")
    profile = p.profile or (session.profile if session else "hud-web")
    made = ctx.deps.compose_caption(chosen, profile=profile, ttl_ms=p.ttl_ms,
                                       session_id=session.id if session else None)
    ctx.data["caption"] = made
    return made.text.replace("\n", " / ")


# --- summarize (optional LLM wording, template fallback) --------------------
class SummarizeParams(_Params):
    timeout_s: float = Field(default=2.0, gt=0, le=30)


async def summarize(ctx: RunContext, p: SummarizeParams) -> str:
    made = ctx.need("caption", "summarize")
    chosen = ctx.need("chosen", "summarize")
    gloss = await ctx.deps.gloss(chosen.topic.title, ctx.data.get("utterance", ""), timeout_s=p.timeout_s)
    if gloss is None:
        return "kept template (no LLM configured, or it was slow or failed)"
    ctx.data["caption"] = ctx.deps.compose_caption(chosen, profile=made.profile, ttl_ms=made.ttl_ms,
                                                      session_id=made.session_id, summary=gloss)
    return "summarized"


# --- push ------------------------------------------------------------------
class PushParams(_Params):
    display: str = Field(default="session", description="'session' (the session's displays) or an adapter name")
    key: Literal["caption", "digest"] = "caption"


async def push(ctx: RunContext, p: PushParams) -> str:
    item = ctx.need(p.key, "push")
    delivered = await ctx.deps.push(item, display=p.display)
    return f"pushed to {', '.join(delivered) or 'nothing'}"


# --- digest ----------------------------------------------------------------
class DigestParams(_Params):
    lang: Literal["zh", "en", "ja"] | None = None
    limit: int = Field(default=20, ge=1, le=200)
    since_hours: float = Field(default=24, gt=0)
    format: Literal["md", "html", "json"] = "md"
    path: str | None = Field(default=None, description="file to write, relative to the data dir; may use {date}")


async def digest(ctx: RunContext, p: DigestParams) -> str:
    from ..digest import build_digest, render_digest
    from ..models import utcnow

    d = await asyncio.to_thread(build_digest, ctx.deps.store, lang=p.lang, limit=p.limit,
                                    since_hours=p.since_hours, clusters=ctx.deps.cluster_list() or None)
    rendered = render_digest(d, p.format)
    ctx.data["digest"] = d
    ctx.data["digest_text"] = rendered
    if p.path:
        target = ctx.deps.data_dir / p.path.format(date=utcnow().date().isoformat())
        if not target.resolve().is_relative_to(ctx.deps.data_dir.resolve()):
            raise ConfigError(f"digest path {p.path!r} leaves the data directory")
        await asyncio.to_thread(_write, target, rendered)
        return f"{len(d.items)} items → {target}"
    return f"{len(d.items)} items"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # readers never see a half-written digest


STEPS: dict[str, Step] = {
    s.name: s
    for s in (
        Step("fetch", FetchParams, fetch, "fetch sources once and refresh the ranking index"),
        Step("rank", RankParams, rank, "rank current topics against the session's conversation"),
        Step("filter", FilterParams, filter_items, "keep/drop items by keywords, regex or source"),
        Step("gate", GateParams, gate, "decide whether to show the best candidate now"),
        Step("caption", CaptionParams, caption, "compose a caption that fits the display profile"),
        Step("summarize", SummarizeParams, summarize, "reword the caption with the configured LLM, if any"),
        Step("push", PushParams, push, "send the caption or digest to displays"),
        Step("digest", DigestParams, digest, "build the digest of top topics; optionally write it to a file"),
    )
}
