"""The running service's parts, wired once: store, collector, ranker, sessions, displays, engine.

The CLI, the demo and the API all drive TrendLens through one `Runtime`, so the
live loop is the same code everywhere.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .captions.caption import Caption
from .captions.templates import compose_caption
from .collect import Collector
from .display import Display
from .display.hud import HudHub
from .display.mentra_speech import Heard
from .engine.runner import WorkflowEngine
from .errors import ConfigError, InputError, ModelError, UnknownNameError
from .metrics import Metrics
from .ranking import Ranked, Ranker
from .ranking.merge import Cluster, StoryIndex, background_of
from .ranking.window import ConversationWindow
from .resources import workflows_dir
from .sessions import Session, SessionManager, clean_utterance
from .settings import Settings
from .store import Store, StoredTopic, open_store

__all__ = ["Runtime", "UtteranceResult"]

log = logging.getLogger("trendlens.runtime")
T = TypeVar("T")


# Lists whose titles read badly as a headline ("owner/repo", "Super_Bowl_LIX" article names)
_WEAK_HEADLINES = ("github_trending", "wikipedia")


def _headline(topic: Any, members: Any) -> Any:
    """The member that words the story best: the matched item, unless a news-like list does better."""
    if topic.source not in _WEAK_HEADLINES:
        return topic
    better = [m for m in members if m.source not in _WEAK_HEADLINES]
    return max(better, key=lambda m: m.heat or 0) if better else topic


@dataclass(frozen=True, kw_only=True)
class UtteranceResult:
    captions: list[Caption]
    decision: dict[str, Any] | None
    warning: str | None = None


@dataclass
class Runtime:
    settings: Settings
    store: Store
    collector: Collector
    sessions: SessionManager
    hud: HudHub
    metrics: Metrics = field(default_factory=Metrics)
    displays: dict[str, Display] = field(default_factory=dict)
    ranker: Ranker | None = None
    model_error: str | None = None
    clusters: dict[str, Cluster] = field(default_factory=dict)  # topic id -> its cluster
    stored: dict[str, StoredTopic] = field(default_factory=dict)
    engine: WorkflowEngine | None = None
    llm_client: Any = None  # httpx.AsyncClient for the OpenAI-compatible endpoint, when one is configured
    embedder_choice: Any = "settings"  # "settings" = build from settings; else an Embedder, or None for lexical
    _refresh_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # held across cycles: keeps cluster ids stable, and each cycle compares only its new topics
    _stories: StoryIndex | None = None
    _story_members: dict[str, set[str]] = field(default_factory=dict)

    @property
    def model_name(self) -> str | None:
        embedder = self.ranker.embedder if self.ranker else None
        return getattr(embedder, "name", None) if embedder is not None else None

    # -- construction ----------------------------------------------------------
    @classmethod
    def build(cls, settings: Settings, *, store: Store | None = None, collector: Collector | None = None,
              embedder: Any = "settings") -> Runtime:
        """Wire every part; the model is loaded later by `start` (off the event loop)."""
        store = store or open_store(settings)
        runtime = cls(settings=settings, store=store, collector=collector or Collector(settings, store),
                      sessions=SessionManager(store), hud=HudHub(), embedder_choice=embedder)
        runtime.collector.metrics = runtime.metrics
        runtime.collector.listeners.append(runtime._on_cycle)
        runtime.metrics.gauge("trendlens_sessions_live", "Sessions held in memory", lambda: len(runtime.sessions))
        runtime.metrics.gauge("trendlens_topics_indexed", "Topics in the ranking index", lambda: len(runtime.stored))
        runtime.metrics.gauge("trendlens_ranking_shed_total", "Queries ranked lexically because the model was busy",
                              lambda: runtime.ranker.shed if runtime.ranker else 0)
        runtime.metrics.gauge("trendlens_batch_queue_depth", "Embedding requests waiting for the model",
                              lambda: runtime.ranker.batcher.queue_depth
                              if runtime.ranker and runtime.ranker.batcher else 0)
        runtime.displays = runtime._build_displays()
        if settings.llm_base_url:
            import httpx

            runtime.llm_client = httpx.AsyncClient(timeout=settings.llm_timeout_s)
        runtime.engine = WorkflowEngine(runtime, settings.workflows_dir or workflows_dir())
        return runtime

    def _build_displays(self) -> dict[str, Display]:
        """The HUD hub always; stdout, webhook and the MentraOS app when configured."""
        import httpx

        from .display import MentraApp, MentraConfig, StdoutDisplay, WebhookDisplay

        displays: dict[str, Display] = {"hud": self.hud}
        s = self.settings
        for name in s.displays:
            if name == "stdout":
                displays[name] = StdoutDisplay()
            elif name == "webhook":
                if not s.webhook_url or not s.webhook_secret:
                    raise ConfigError("display 'webhook' needs TRENDLENS_WEBHOOK_URL and TRENDLENS_WEBHOOK_SECRET")
                displays[name] = WebhookDisplay(s.webhook_url, client=httpx.AsyncClient(timeout=5.0),
                                                secret=s.webhook_secret.get_secret_value())
            elif name == "mentra":
                if not s.mentra_api_key:
                    raise ConfigError("display 'mentra' needs TRENDLENS_MENTRA_API_KEY (the app's MentraOS API key)")
                config = MentraConfig(package_name=s.mentra_package, api_key=s.mentra_api_key.get_secret_value(),
                                      languages=tuple(s.mentra_languages),
                                      allowed_hosts=tuple(s.mentra_allowed_hosts))
                displays[name] = MentraApp(config, on_transcript=self._on_mentra_transcript)
            elif name != "hud":
                raise UnknownNameError("display", name, ("stdout", "webhook", "hud", "mentra"))
        return displays

    async def start(self) -> None:
        """Load the embedding model (degrading to lexical ranking if it fails) and index the store."""
        from .ranking import EmbeddingCache, MicroBatcher, build_embedder

        embedder: Any = None
        choice = self.embedder_choice
        try:
            if choice == "settings":
                embedder = await asyncio.to_thread(build_embedder, self.settings)
            else:
                embedder = choice
        except ModelError as exc:
            self.model_error = str(exc)
            log.error("embedding model unavailable, ranking lexically only: %s", exc)
        batcher = MicroBatcher(embedder) if embedder is not None else None
        cache = EmbeddingCache.for_settings(self.settings) if embedder is not None else None
        self.ranker = Ranker(embedder, batcher=batcher, cache=cache,
                             shed_queue_depth=self.settings.shed_queue_depth or None)
        if embedder is not None:
            log.info("ranking with %s on %s", getattr(embedder, "name", "?"), getattr(embedder, "device", "cpu"))
            # the first real utterance should not pay for lazy initialisation
            await asyncio.to_thread(embedder.encode, ["warm up 热身"], role="query")
        await self.refresh_topics()

    async def aclose(self) -> None:
        for display in self.displays.values():
            try:
                await display.aclose()
            except Exception as exc:  # noqa: BLE001 - closing must go on for the others
                log.warning("closing display %s: %s", getattr(display, "name", "?"), exc)
        await self.collector.aclose()
        if self.llm_client is not None:
            await self.llm_client.aclose()
        if self.ranker is not None and self.ranker.batcher is not None:
            self.ranker.batcher.close()

    async def in_thread(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def _on_mentra_transcript(self, heard: Heard) -> list[Caption]:
        """MentraOS transcripts drive the same live loop; captions reach the glasses via push."""
        session = await asyncio.to_thread(self.sessions.ensure, heard.session_id, heard.profile)
        session.profile = heard.profile  # the glasses named in this connection's ack
        try:
            await self.handle_utterance(session, heard.text, final=heard.is_final)
        except InputError as exc:
            log.info("mentra %s: transcript ignored: %s", heard.session_id, exc)
        return []  # the workflow's push step already sent them to this session's display

    async def _on_cycle(self, outcomes: list[Any]) -> None:
        if self.ranker is not None:  # before start() there is nothing to re-index yet
            await self.refresh_topics()

    # -- topics ------------------------------------------------------------------
    async def refresh_topics(self) -> int:
        """Re-index the current snapshot of every source and re-cluster across platforms."""
        async with self._refresh_lock:
            current = await asyncio.to_thread(self.store.current)
            if self.ranker is None:
                return len(current)
            ranker = self.ranker
            # built off the event loop and published with one assignment: a query never sees half an index
            snapshot = await asyncio.to_thread(ranker.index, current)
            topics = [e.topic for e in snapshot.entries]
            if self._stories is None:
                self._stories = StoryIndex(background=background_of(ranker.embedder))
            clusters = await asyncio.to_thread(
                self._stories.update, topics, snapshot.matrix if ranker.embedder is not None else None,
                cancel=ranker.cancel)
            self._story_members = {c.id: {m.id for m in c.members} for c in clusters}
            self.stored = {s.topic.id: s for s in current}
            self.clusters = {m.id: c for c in clusters for m in c.members}
            log.info("indexed %d topics in %d cross-platform clusters", len(current), len(clusters))
            return len(current)

    async def rank(self, query: str | ConversationWindow, *, top_k: int = 5, prior: bool = True, mmr: bool = True,
                   exclude: set[str] | None = None, gate: bool = False, gate_offset: float = 0.0,
                   latest: str | None = None, latest_top_k: int = 0) -> list[Ranked]:
        """Rank current topics; one result per cross-platform cluster (its best member).

        The one ranking call of the service: the live loop, chat and search all come here,
        and with `gate` the ranker's relevance gate is the only relevance decision.
        """
        if self.ranker is None:
            return []
        started = time.perf_counter()
        related = (lambda ids: self.members_of({self.story_key(i) for i in ids})) if latest_top_k else None
        raw = await self.ranker.rank(query, top_k=top_k * 3, prior=prior, mmr=mmr, exclude=exclude, gate=gate,
                                     gate_offset=gate_offset, latest=latest, latest_top_k=latest_top_k,
                                     related=related)
        self.metrics.ranking_seconds.observe(time.perf_counter() - started)
        seen: set[str] = set()
        out = []
        for r in raw:
            cluster = self.clusters.get(r.topic.id)
            key = cluster.id if cluster else r.topic.id
            if key in seen:
                continue
            seen.add(key)
            out.append(r)
            if len(out) == top_k:
                break
        return out

    def cluster_list(self) -> list[Cluster]:
        """Each current cross-platform cluster once, hottest first by fair heat (`Cluster.score`)."""
        return list({c.id: c for c in self.clusters.values()}.values())

    def story_key(self, topic_id: str) -> str:
        """The cross-platform story a topic belongs to (its cluster id, else itself)."""
        cluster = self.clusters.get(topic_id)
        return cluster.id if cluster else topic_id

    def members_of(self, stories: set[str]) -> set[str]:
        """Every topic id belonging to these stories."""
        out = set(stories)
        for story in stories:
            out |= self._story_members.get(story, set())
        return out

    def compose_caption(self, ranked: Ranked, *, profile: str, ttl_ms: int | None = None,
                        session_id: str | None = None, summary: str | None = None) -> Caption:
        topic = ranked.topic
        cluster = self.clusters.get(topic.id)
        members = cluster.members if cluster else [topic]
        # Members come hottest first by normalised heat (a platform's #1 before another's #30),
        # so the line leads with the platform where the story ranks highest.
        best: dict[str, int | None] = {}
        for m in members:
            best.setdefault(m.source, m.rank)  # one entry per platform, its hottest member's rank
        platforms = list(best.items())[:4]
        stored = self.stored.get(topic.id)
        # raw heats of different platforms do not add up: show the leading platform's own figure
        heat = members[0].heat if cluster else topic.heat
        lead = _headline(topic, members)
        return compose_caption(title=lead.title, platforms=platforms, heat=heat,
                               trend=stored.trend if stored else "steady", profile=profile,
                               summary=summary or lead.summary, score=ranked.score, topic_id=topic.id,
                               ttl_ms=ttl_ms,
                               session_id=session_id)

    async def gloss(self, title: str, context: str, *, timeout_s: float) -> str | None:
        """A one-line gloss of a topic from the configured LLM, or None (not configured, slow, failed)."""
        s = self.settings
        if not s.llm_base_url or self.llm_client is None:
            return None
        from .captions.summarize import summarize

        return await summarize(title, context, client=self.llm_client, base_url=s.llm_base_url,
                               api_key=s.llm_api_key.get_secret_value() if s.llm_api_key else None,
                               model=s.llm_model, timeout_s=timeout_s)

    # -- output --------------------------------------------------------------------
    async def push(self, item: Any, *, display: str = "session") -> list[str]:
        # "session": every configured display; each adapter delivers only what concerns it
        names = list(self.displays) if display == "session" else [display]
        delivered = []
        for name in names:
            target = self.displays.get(name)
            if target is None:
                continue  # not configured here: nothing to deliver to, not an error
            if isinstance(item, Caption):
                if await target.show(item):
                    delivered.append(name)
            elif hasattr(target, "send_digest"):
                payload = item.public() if hasattr(item, "public") else item
                if await target.send_digest(payload):
                    delivered.append(name)
        return delivered

    # -- the live loop -------------------------------------------------------------
    async def handle_utterance(self, session: Session, text: Any, *, final: bool = True,
                               now: float | None = None) -> UtteranceResult:
        """One utterance in, captions out (usually none): the glasses' whole loop."""
        clean, warning = clean_utterance(text)
        now = time.time() if now is None else now
        async with session.lock:
            session.window.add(clean, ts=now)
            if not final:
                # partial transcripts change word by word; deciding on them makes captions flicker
                return UtteranceResult(captions=[], decision=None, warning=warning)
            session.gate.hear(clean)
            captions: list[Caption] = []
            decision = None
            assert self.engine is not None
            for spec in self.engine.for_event("utterance"):
                record = await self.engine.run(spec.name, trigger="event:utterance",
                                               data={"session": session, "utterance": clean, "now": now})
                d = record.data.get("decision")
                made = record.data.get("caption") if record.status == "ok" else None
                if made is not None:
                    captions.append(made)
                    session.last_caption = made
                if d is not None:
                    decision = d.public()
                    self.metrics.decisions.inc(d.reason)
                    await asyncio.to_thread(self.sessions.record, session, clean, d, made)
            return UtteranceResult(captions=captions, decision=decision, warning=warning)
