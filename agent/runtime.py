"""The composition root: builds the service's parts, wires them together and owns their lifecycle.

The parts, each in its own module with one job:

    TopicIndex (index/topic_index.py)      store snapshot → ranker index + story clusters
    LiveLoop (live.py)               utterance → LiveResult(decision, captions)
    CaptionComposer (captions/composer.py)  caption wording + the optional LLM gloss
    DisplayRouter (display/router.py)       captions and digests → the configured displays
    FetchJob (collect/scheduling.py)         the one fetch path (scheduler jobs and the refresh workflow)
    load_ranker (index/model_loading.py)   the model, or lexical ranking when it cannot load
    build_displays (display/configured.py)  the configured displays (and the MentraOS app server)
    WorkflowEngine (engine/)         runs workflows; steps see only `StepDeps` (engine/step_deps.py)

The CLI, the demo and the API all drive TrendLens through one `Runtime`, so the
live loop is the same code everywhere. `Runtime.build` makes every part before the
frozen `Runtime` value exists; callers reach a part by its name (`runtime.index.rank(q)`).
Workflow steps (`StepDeps`) and the chat (`ChatDeps`) see only `runtime.deps`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import httpx

from agent.collect.collector import Collector
from agent.collect.joblocks import job_locks_for
from agent.collect.scheduling import FetchJob
from agent.engine.llm import LlmConfig
from agent.engine.step_deps import PartsDeps
from agent.index.model_loading import EmbedderFactory, fixed_embedder, load_ranker
from agent.index.topic_index import TopicIndex
from agent.live.gating import Decision
from agent.live.loop import LiveLoop, LiveResult
from agent.live.sessions import Session, SessionManager, SessionStore
from agent.live.shared_sessions import RedisSessionState

from .captions.caption import Caption
from .captions.composer import CaptionComposer
from .display.base import CaptionFanout
from .display.configured import build_displays
from .display.hud import HudHub
from .display.mentra import MentraApp
from .display.mentra_speech import Heard
from .display.redis_fanout import RedisFanout
from .display.router import DisplayRouter
from .engine.runner import WorkflowEngine
from .errors import InputError
from .metrics import Metrics
from .notify import Notifier
from .ranking import Embedder, build_embedder
from .resources import workflows_dir
from .settings import Settings
from .store import Store, open_store
from .watch import Watcher, WatchLists

__all__ = ["Runtime", "UtteranceResult"]

log = logging.getLogger("trendlens.runtime")

CLOSE_PART_S = 5.0  # longer than any healthy close (milliseconds); a stuck one is left behind


def _caption_fanout(settings: Settings) -> CaptionFanout:
    """In process by default; through Redis when instances share one (`TRENDLENS_REDIS_URL`)."""
    if settings.store.redis_url is None:
        return HudHub()
    return RedisFanout(settings.store.redis_url.get_secret_value())


@dataclass(frozen=True, kw_only=True)
class UtteranceResult:
    """A `LiveResult` as the HTTP API and the demo show it: its captions listed and its stages' times in
    milliseconds. The decision stays the gate's typed `Decision`; each surface says it in its own shape
    (`DecisionOut` for the HTTP answer and the socket)."""

    captions: list[Caption]
    decision: Decision | None
    warning: str | None = None
    stages_ms: dict[str, float] = field(default_factory=dict)  # where the decision's time went

    @classmethod
    def of(cls, result: LiveResult) -> UtteranceResult:
        return cls(captions=list(result.captions), warning=result.warning,
                   decision=result.decision,
                   stages_ms=result.stages.ms() if result.stages is not None else {})


@dataclass(frozen=True, kw_only=True, eq=False)
class Runtime:
    """The running service's parts, made by `build`. Its own methods are the lifecycle and the two
    things that span parts: hearing an utterance (and releasing what it held back) and erasing a session."""

    settings: Settings
    store: Store
    metrics: Metrics
    sessions: SessionStore
    hud: CaptionFanout
    index: TopicIndex
    collector: Collector
    fetch_job: FetchJob
    composer: CaptionComposer
    router: DisplayRouter
    mentra: MentraApp | None  # the MentraOS app server, when that display is configured
    deps: PartsDeps  # all that workflow steps (`StepDeps`) and the chat (`ChatDeps`) see
    notifier: Notifier  # push channels (TRENDLENS_NOTIFY_URLS): the digest and watch alerts
    watcher: Watcher  # watch lists (the operator's and each key's), checked after every fetch cycle
    engine: WorkflowEngine
    live: LiveLoop
    make_embedder: EmbedderFactory  # the model is made in `start`, off the event loop

    # -- construction ----------------------------------------------------------
    @classmethod
    def build(cls, settings: Settings, *, store: Store | None = None,
              transport: httpx.AsyncBaseTransport | None = None, llm_client: httpx.AsyncClient | None = None,
              embedder: EmbedderFactory | Embedder | None = build_embedder) -> Runtime:
        """Open the store (unless given) and make every part, wired and watched.

        `transport` carries the collector's fetches (None: the real network), `llm_client` the LLM's
        requests (None: a client of its own when an LLM is configured), and `embedder` is the model's
        factory or the model itself (None: lexical ranking). The model is loaded later, by `start`.
        """
        store = store or open_store(settings)
        metrics = Metrics()
        sessions = SessionManager(store, keep_text=settings.store.keep_utterances_days > 0)
        hud = _caption_fanout(settings)
        index = TopicIndex(store, metrics=metrics)
        collector = Collector(settings, store, transport=transport, metrics=metrics, listeners=[index.after_cycle])
        fetch_job = FetchJob(collector, job_locks_for(settings))
        llm = LlmConfig.from_settings(settings)
        if llm_client is None and llm is not None:
            llm_client = httpx.AsyncClient(timeout=settings.llm.timeout_s)
        composer = CaptionComposer(index, llm=llm, llm_client=llm_client)

        async def on_transcript(heard: Heard) -> list[Caption]:
            # MentraOS hears transcripts only once the service runs, by which time `live` below exists
            return await _hear_mentra(live, sessions, heard)

        displays, mentra = build_displays(settings, hud, on_transcript=on_transcript)
        router = DisplayRouter(displays)
        notifier = Notifier.from_settings(settings, metrics)
        watcher = Watcher(index, notifier, WatchLists.from_settings(settings, store), store)
        collector.listeners.append(watcher.after_cycle)  # after the index's: it reads the new stories
        deps = PartsDeps(store=store, data_dir=settings.store.data_dir, index=index, composer=composer,
                         router=router, fetch_job=fetch_job, notifier=notifier)
        engine = WorkflowEngine(deps, settings.live.workflows_dir or workflows_dir())
        redis_url = settings.store.redis_url
        shared = RedisSessionState(redis_url.get_secret_value()) if redis_url is not None else None
        live = LiveLoop(engine, sessions, metrics=metrics, shared=shared)
        _watch(metrics, sessions, index)
        return cls(settings=settings, store=store, metrics=metrics, sessions=sessions, hud=hud, index=index,
                   collector=collector, fetch_job=fetch_job, composer=composer, router=router, mentra=mentra,
                   deps=deps, notifier=notifier, watcher=watcher, engine=engine, live=live,
                   make_embedder=fixed_embedder(embedder) if embedder is None or isinstance(embedder, Embedder)
                   else embedder)

    # -- lifecycle -------------------------------------------------------------
    async def start(self) -> None:
        """Load the embedding model (degrading to lexical ranking if it fails) and index the store."""
        self.index.attach(await load_ranker(self.settings, self.make_embedder))
        if isinstance(self.hud, RedisFanout):
            await self.hud.start()
        self.live.start()
        await self.index.refresh()

    async def aclose(self) -> None:
        """Close every part; one that does not close within `CLOSE_PART_S` is named in the log and left
        behind, so that stopping the service never hangs on a peer (Redis, a display) that stopped answering."""
        await _closed("displays", self.router.aclose())
        if self.mentra is not None:
            await _closed("MentraOS", self.mentra.aclose())
        await _closed("collector", self.collector.aclose())
        await _closed("composer", self.composer.aclose())
        await _closed("live loop", self.live.aclose())
        if self.live.shared is not None:
            await _closed("shared sessions", self.live.shared.aclose())
        ranker = self.index.ranker
        if ranker is not None and ranker.batcher is not None:
            ranker.batcher.close()
        await asyncio.to_thread(self.fetch_job.locks.close)
        self.notifier.close()
        self.watcher.lists.close()

    # -- what spans parts ------------------------------------------------------
    async def handle_utterance(self, session: Session, text: Any, *, final: bool = True,
                               now: float | None = None) -> UtteranceResult:
        """One utterance in, captions out (usually none): the glasses' whole loop."""
        return UtteranceResult.of(await self.live.hear(session, text, final=final, now=now))

    async def release_held(self, session: Session, *, before: float) -> UtteranceResult:
        """On a caller's own clock (a replay, the demo): the caption held back while the one before it was
        read, if it fell due before `before`. On the wall clock the live loop's timers do this themselves."""
        return UtteranceResult.of(await self.live.release(session, before=before))

    async def erase_session(self, session_id: str) -> bool:
        """Forget a session everywhere: its rows (down to the disk's bytes), its shared live state
        in Redis, the caption its HUD pages hold. False when there was no such session."""
        self.live.forget(session_id)
        found = await asyncio.to_thread(self.sessions.erase, session_id)
        if self.live.shared is not None:
            await self.live.shared.forget(session_id)
        await self.hud.clear(session_id)
        return found


async def _hear_mentra(live: LiveLoop, sessions: SessionStore, heard: Heard) -> list[Caption]:
    """MentraOS transcripts drive the same live loop; captions reach the glasses via push."""
    session = await asyncio.to_thread(sessions.ensure, heard.session_id, heard.profile)
    session.profile = heard.profile  # the glasses named in this connection's ack
    session.speaker = heard.speaker_id  # diarized speech: who said this line, recorded with its decision
    try:
        await live.hear(session, heard.text, final=heard.is_final)
    except InputError as exc:
        log.info("mentra %s: transcript ignored: %s", heard.session_id, exc)
    return []  # the workflow's push step already sent them to this session's display


def _watch(metrics: Metrics, sessions: SessionStore, index: TopicIndex) -> None:
    """The gauges read from the parts at each scrape."""
    metrics.gauge("trendlens_sessions_live", "Sessions held in memory", lambda: len(sessions))
    metrics.gauge("trendlens_topics_indexed", "Topics in the ranking index", lambda: len(index.stored))
    metrics.gauge("trendlens_ranking_shed_total",
                  "Queries ranked lexically because their encode would have missed its deadline",
                  lambda: index.ranker.shed if index.ranker else 0)
    metrics.gauge("trendlens_query_cache_hits_total",
                  "Rank calls whose query vectors all came from the query-vector cache (no encode)",
                  lambda: index.ranker.cache_hits if index.ranker else 0)
    metrics.gauge("trendlens_batch_queue_depth", "Embedding requests waiting for the model",
                  lambda: index.ranker.batcher.queue_depth if index.ranker and index.ranker.batcher else 0)


async def _closed(part: str, closing: Coroutine[Any, Any, None]) -> None:
    """Await one part's close for at most `CLOSE_PART_S`: a close that waits on a socket nobody answers
    (a Redis subscription's teardown, say) must not keep the process from stopping. Its errors propagate."""
    task = asyncio.ensure_future(closing)
    done, _ = await asyncio.wait({task}, timeout=CLOSE_PART_S)
    if not done:
        task.cancel()
        log.warning("stopping: the %s did not close within %.0f s and was left", part, CLOSE_PART_S)
        return
    task.result()
