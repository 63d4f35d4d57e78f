"""A service holding the real hot lists of two days from ../shared/upstream, parsed by our own parsers.

Day one (2025-04-15: Zhihu, Baidu, Douyin, V2EX) is stored as a fetch cycle 20 hours ago,
day two (2025-04-16: Zhihu, Baidu, V2EX) as a cycle now, so Douyin's current list is a day
old and everything else is today's: the state a service is in after a day of running.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import httpx

from agent.collect.fetching import SourceOutcome
from agent.index.model_loading import EmbedderFactory
from agent.models import Topic, utcnow
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings
from agent.sources import REGISTRY
from agent.store import Store, open_store
from harness.apps import KEY
from harness.paths import SHARED
from harness.required import need_shared

UPSTREAM = SHARED / "upstream"
DAY_ONE = {"zhihu": "zhihu/hot-question-2025-04-15.json", "baidu": "baidu/board-realtime-2025-04-15.json",
           "douyin": "douyin/hot-search-2025-04-15.json", "v2ex": "v2ex/hot-2025-04-15.json"}
DAY_TWO = {"zhihu": "zhihu/hot-question-2025-04-16.json", "baidu": "baidu/board-realtime-2025-04-16.json",
           "v2ex": "v2ex/hot-2025-04-16.json"}
# Real English-language lists, for questions asked in Chinese about them: stored as fetched now.
ENGLISH = {"reddit": "reddit/front-hot-2016-03-01.json", "github_trending": "github_trending/trending-2019-05-11.html"}


def need_upstream(*, english: bool = False) -> None:
    wanted = (*DAY_ONE.values(), *DAY_TWO.values(), *(ENGLISH.values() if english else ()))
    need_shared(*(f"upstream/{f}" for f in wanted))


def parse(source: str, file: str, settings: Settings) -> list[Topic]:
    return REGISTRY[source].from_settings(settings).parse_body((UPSTREAM / file).read_bytes())


def lists(settings: Settings) -> tuple[dict[str, list[Topic]], dict[str, list[Topic]]]:
    """(day one, day two): each source's parsed list."""
    return ({s: parse(s, f, settings) for s, f in DAY_ONE.items()},
            {s: parse(s, f, settings) for s, f in DAY_TWO.items()})


def english_lists(settings: Settings) -> dict[str, list[Topic]]:
    return {s: parse(s, f, settings) for s, f in ENGLISH.items()}


def current_lists(settings: Settings, *, english: bool = False) -> dict[str, list[Topic]]:
    """What each platform lists now: day two where it has one, else day one (and the English lists)."""
    one, two = lists(settings)
    return {**one, **two, **(english_lists(settings) if english else {})}


def record_real_days(store: Store, settings: Settings, *, heat_scale: dict[str, float] | None = None,
                     english: bool = False) -> None:
    """Day one as a fetch cycle 20 hours ago, day two (and the English lists) as a cycle now."""
    one, two = lists(settings)
    if english:
        two = {**two, **english_lists(settings)}
    scale = heat_scale or {}

    def outcomes(day: dict[str, list[Topic]]) -> list[SourceOutcome]:
        return [SourceOutcome(source=s, topics=[t.model_copy(update={"heat": (t.heat or 0) * scale.get(s, 1.0)})
                                                for t in topics]) for s, topics in day.items()]

    now = utcnow()
    store.record_cycle(outcomes(one), now=now - timedelta(hours=20))
    store.record_cycle(outcomes(two), now=now)


def seed_real_days(data_dir: Path) -> Settings:
    """A data directory (or the test's database) holding the recorded days, for a server process to open."""
    data_dir.mkdir(parents=True, exist_ok=True)  # the server runs there, whichever store holds the days
    settings = Settings(data_dir=data_dir, offline=True)
    store = open_store(settings)
    try:
        record_real_days(store, settings)
    finally:
        store.close()
    return settings


def real_runtime(data_dir: Path, *, heat_scale: dict[str, float] | None = None, english: bool = False,
                 embedder: EmbedderFactory | None = None, llm_client: httpx.AsyncClient | None = None,
                 **overrides) -> Runtime:
    """A runtime whose store holds the two recorded days (no synthetic snapshot), ranking with the
    embedder `embedder` makes (the hash test embedder when None); `llm_client`: where the LLM's requests go."""
    settings = Settings(data_dir=data_dir, offline=True, api_keys=KEY, **overrides)
    runtime = Runtime.build(settings, embedder=embedder or HashEmbedder(), llm_client=llm_client)
    record_real_days(runtime.store, settings, heat_scale=heat_scale, english=english)
    asyncio.run(runtime.collector.aclose())
    return runtime
