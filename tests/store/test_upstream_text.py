"""What upstreams send is cleaned once where it enters, and one source's rows never cost the others theirs;
a source's error, stored and served to every key, holds no credential of its URL."""

from __future__ import annotations

import asyncio

from agent.collect.collector import Collector
from agent.collect.fetching import SourceOutcome
from agent.errors import FetchError, StoreError
from agent.models import Topic
from agent.settings import Settings
from agent.sources.feed import plain


def test_control_characters_leave_upstream_text_where_it_becomes_a_topic() -> None:
    topic = Topic(source="weibo", item_id="7\x00", title="机器人\x00扭秧歌\x1b", summary="春晚\x00节目",
                  heat_text="12\x85万")
    assert (topic.title, topic.summary, topic.item_id, topic.heat_text) == ("机器人扭秧歌", "春晚节目", "7", "12万")
    assert plain("<p>a\x00b\x07c</p>") == "abc"


def test_a_title_with_a_nul_is_stored_on_every_store(store) -> None:
    titles = ["机器人\x00扭秧歌", "春晚收视率"]
    store.record_cycle([SourceOutcome(source="weibo", topics=[Topic(source="weibo", item_id=str(n), title=t, rank=n)
                                                                for n, t in enumerate(titles, 1)])])
    assert sorted(t.topic.title for t in store.current()) == ["春晚收视率", "机器人扭秧歌"]


class RefusingStore:
    """The real store, except that it refuses any write holding one source's rows (a row it cannot take)."""

    def __init__(self, store, refused: str) -> None:  # noqa: ANN001
        self._store, self.refused = store, refused

    def record_cycle(self, outcomes, **kwargs):  # noqa: ANN001, ANN003, ANN201
        outcomes = list(outcomes)
        if any(o.source == self.refused and o.ok for o in outcomes):
            raise StoreError("store write failed: invalid byte sequence")
        return self._store.record_cycle(outcomes, **kwargs)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self._store, name)


def test_one_sources_rows_the_store_refuses_never_drop_the_other_sources(store, tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data", offline=True)
    collector = Collector(settings, RefusingStore(store, "weibo"), fallback_to_replay=False)  # type: ignore[arg-type]

    async def cycle() -> list[SourceOutcome]:
        try:
            return await collector.cycle()
        finally:
            await collector.aclose()

    outcomes = asyncio.run(cycle())
    stored = {t.topic.source for t in store.current()}
    assert "weibo" not in stored and len(stored) >= 3  # every other source's rows are kept
    health = {h.source: h for h in store.health()}
    assert health["weibo"].consecutive_failures == 1 and "could not be stored" in (health["weibo"].last_error or "")
    assert not next(o for o in outcomes if o.source == "weibo").ok


def test_a_sources_stored_error_holds_no_credential_of_its_url(store) -> None:
    url = "https://reader:pa55word@agg.example:8443/rss/0123456789abcdefABCD/feed?token=s3cretvalue#top"
    error = FetchError("agg", f"HTTP 500 for url '{url}'", url=url)
    store.record_cycle([SourceOutcome(source="agg", error=error)])
    [health] = [h for h in store.health() if h.source == "agg"]
    shown = health.last_error or ""
    assert "agg.example:8443/rss/" in shown
    for secret in ("reader", "pa55word", "0123456789abcdefABCD", "s3cretvalue", "token"):
        assert secret not in shown and secret not in str(error)


def test_an_ingested_title_of_control_characters_only_is_refused_not_a_500(tmp_path) -> None:
    from fastapi.testclient import TestClient

    from agent.api import create_app
    from harness.apps import AUTH, make_runtime

    runtime = make_runtime(tmp_path / "data")
    with TestClient(create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)) as client:
        refused = client.post("/v1/topics", headers=AUTH, json=[{"id": "x1", "title": "\x1b\x00"}])
        kept = client.post("/v1/topics", headers=AUTH, json=[{"id": "x2", "title": "机器人\x00跳舞"}])
    assert refused.status_code == 422
    assert kept.status_code < 300
