"""The composition root: builds the service's parts, wires them together and owns their lifecycle.

The parts, each in its own module with one job:

    TopicIndex (topic_index.py)      store snapshot → ranker index + story clusters
    LiveLoop (live.py)               utterance → LiveResult(decision, captions)
    CaptionComposer (captions/composer.py)  caption wording + the optional LLM gloss
    DisplayRouter (display/router.py)       captions and digests → the configured displays
    FetchJob (scheduling.py)         the one fetch path (scheduler jobs and the refresh workflow)
    load_ranker (model_loading.py)   the model, or lexical ranking when it cannot load
    build_displays (display/configured.py)  the configured displays (and the MentraOS app server)
    WorkflowEngine (engine/)         runs workflows; steps see only `StepDeps` (step_deps.py)

The CLI, the demo and the API all drive TrendLens through one `Runtime`, so the
live loop is the same code everywhere. The methods below are thin delegations kept
so call sites read `runtime.rank(...)` rather than reaching into a part.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .captions.caption import Caption
from .captions.composer import CaptionComposer
from .collect import Collector
from .display import Display
from .display.base import CaptionFanout
from .display.configured import build_displays
from .display.hud import HudHub
from .display.mentra_speech import Heard
from .display.redis_fanout import RedisFanout
from .display.router import DisplayRouter
from .engine.runner import WorkflowEngine
from .errors import InputError
from .joblocks import job_locks_for
from .live import LiveLoop, LiveResult
from .llm import LlmConfig
from .metrics import Metrics
from .model_loading import EmbedderFactory, fixed_embedder, load_ranker
from .ranking import Embedder, Ranked, Ranker, RankQuery, build_embedder
from .resources import workflows_dir
from .scheduling import FetchJob
from .sessions import Session, SessionManager, SessionStore
from .settings import Settings
from .shared_sessions import RedisSessionState
from .step_deps import PartsDeps
from .store import Store, StoredTopic, open_store
from .stories import Story
from .topic_index import TopicIndex

__all__ = ["Runtime", "UtteranceResult"]

log = logging.getLogger("trendlens.runtime")


def _caption_fanout(settings: Settings) -> CaptionFanout:
    """In process by default; through Redis when instances share one (`TRENDLENS_REDIS_URL`)."""
    if settings.store.redis_url is None:
        return HudHub()
    return RedisFanout(settings.store.redis_url.get_secret_value())
T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class UtteranceResult:
    """A `LiveResult` as the HTTP API and the demo show it (the decision as a JSON-ready mapping)."""

    captions: list[Caption]
    decision: dict[str, Any] | None
    warning: str | None = None

    @classmethod
    def of(cls, result: LiveResult) -> UtteranceResult:
        return cls(captions=list(result.captions), warning=result.warning,
                   decision=result.decision.public() if result.decision is not None else None)


class Runtime:
    def __init__(self, *, settings: Settings, store: Store, collector: Collector, sessions: SessionStore,
                 hud: CaptionFanout, metrics: Metrics | None = None,
                 embedder: EmbedderFactory | Embedder | None = build_embedder) -> None:
        self.settings, self.store, self.collector, self.sessions, self.hud = settings, store, collector, sessions, hud
        self.metrics = metrics or Metrics()
        # the model is made in `start`, off the event loop: the factory, or the embedder given (None: lexical)
        self.make_embedder: EmbedderFactory = (
            fixed_embedder(embedder) if embedder is None or isinstance(embedder, Embedder) else embedder)
        self.model_error: str | None = None
        self.index = TopicIndex(store, metrics=self.metrics)
        llm = LlmConfig.from_settings(settings)
        llm_client = None
        if llm is not None:
            import httpx

            llm_client = httpx.AsyncClient(timeout=llm.timeout_s)
        self.composer = CaptionComposer(self.index, llm=llm, llm_client=llm_client)
        # the MentraOS app server (`mentra`, when that display is configured) hears transcripts only
        # once the service runs, by which time the live loop below exists
        displays, self.mentra = build_displays(settings, hud, on_transcript=self._on_mentra_transcript)
        self.router = DisplayRouter(displays)
        self.fetch_job = FetchJob(collector, job_locks_for(settings))
        self.deps = PartsDeps(store=store, data_dir=settings.store.data_dir, index=self.index, composer=self.composer,
                              router=self.router, fetch_job=self.fetch_job)
        self._engine = WorkflowEngine(self.deps, settings.live.workflows_dir or workflows_dir())
        redis_url = settings.store.redis_url
        shared = RedisSessionState(redis_url.get_secret_value()) if redis_url is not None else None
        self.live = LiveLoop(self._engine, sessions, metrics=self.metrics, shared=shared)

    # -- construction ----------------------------------------------------------
    @classmethod
    def build(cls, settings: Settings, *, store: Store | None = None, collector: Collector | None = None,
              embedder: EmbedderFactory | Embedder | None = build_embedder) -> Runtime:
        """Open the store and the collector, make every part and watch them; the model is loaded later
        by `start` (off the event loop)."""
        store = store or open_store(settings)
        sessions = SessionManager(store, keep_text=settings.store.keep_utterances_days > 0)
        runtime = cls(settings=settings, store=store, collector=collector or Collector(settings, store),
                      sessions=sessions, hud=_caption_fanout(settings), embedder=embedder)
        runtime.collector.metrics = runtime.metrics
        runtime.collector.listeners.append(runtime._on_cycle)
        runtime.metrics.gauge("trendlens_sessions_live", "Sessions held in memory", lambda: len(runtime.sessions))
        runtime.metrics.gauge("trendlens_topics_indexed", "Topics in the ranking index", lambda: len(runtime.stored))
        runtime.metrics.gauge("trendlens_ranking_shed_total",
                              "Queries ranked lexically because their encode would have missed its deadline",
                              lambda: runtime.ranker.shed if runtime.ranker else 0)
        runtime.metrics.gauge("trendlens_batch_queue_depth", "Embedding requests waiting for the model",
                              lambda: runtime.ranker.batcher.queue_depth
                              if runtime.ranker and runtime.ranker.batcher else 0)
        return runtime

    # -- lifecycle -------------------------------------------------------------
    async def start(self) -> None:
        """Load the embedding model (degrading to lexical ranking if it fails) and index the store."""
        loaded = await load_ranker(self.settings, self.make_embedder)
        self.model_error = loaded.model_error
        self.index.ranker = loaded.ranker
        if isinstance(self.hud, RedisFanout):
            await self.hud.start()
        await self.refresh_topics()

    async def aclose(self) -> None:
        await self.router.aclose()
        if self.mentra is not None:
            await self.mentra.aclose()
        await self.collector.aclose()
        await self.composer.aclose()
        if self.live.shared is not None:
            await self.live.shared.aclose()
        if self.ranker is not None and self.ranker.batcher is not None:
            self.ranker.batcher.close()
        await asyncio.to_thread(self.fetch_job.locks.close)

    async def in_thread(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def erase_session(self, session_id: str) -> bool:
        """Forget a session everywhere: its rows (down to the disk's bytes), its shared live state
        in Redis, the caption its HUD pages hold. False when there was no such session."""
        found = await asyncio.to_thread(self.sessions.erase, session_id)
        if self.live is not None and self.live.shared is not None:
            await self.live.shared.forget(session_id)
        await self.hud.clear(session_id)
        return found

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

    # -- delegations kept for the call sites ---------------------------------------
    @property
    def engine(self) -> WorkflowEngine:
        return self._engine

    @engine.setter
    def engine(self, engine: WorkflowEngine) -> None:
        """Swapping the engine (e.g. another workflows folder) swaps it for the live loop too."""
        self._engine = engine
        self.live.engine = engine

    @property
    def ranker(self) -> Ranker | None:
        return self.index.ranker

    @property
    def model_name(self) -> str | None:
        embedder = self.ranker.embedder if self.ranker else None
        return getattr(embedder, "name", None) if embedder is not None else None

    @property
    def displays(self) -> dict[str, Display]:
        return self.router.displays

    @property
    def llm_client(self) -> Any:
        return self.composer.llm_client

    @llm_client.setter
    def llm_client(self, client: Any) -> None:
        self.composer.llm_client = client

    @property
    def stored(self) -> dict[str, StoredTopic]:
        return self.index.stored

    @property
    def clusters(self) -> dict[str, Story]:
        return self.index.clusters

    async def refresh_topics(self) -> int:
        """Re-index the current snapshot of every source and re-cluster across platforms."""
        return await self.index.refresh()

    async def rank(self, q: RankQuery) -> list[Ranked]:
        return await self.index.rank(q)

    def cluster_list(self) -> list[Story]:
        return self.index.cluster_list()

    def story_key(self, topic_id: str) -> str:
        return self.index.story_key(topic_id)

    async def handle_utterance(self, session: Session, text: Any, *, final: bool = True,
                               now: float | None = None) -> UtteranceResult:
        """One utterance in, captions out (usually none): the glasses' whole loop."""
        return UtteranceResult.of(await self.live.hear(session, text, final=final, now=now))
