"""A fetch cycle end to end: live when the network answers, the synthetic demo snapshot when it does not."""

from __future__ import annotations

import logging

import httpx

from agent.collect.collector import Collector
from agent.settings import Settings
from agent.store import Store


def unreachable(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("Name or service not known", request=request)


async def test_no_network_falls_back_to_the_synthetic_snapshot_and_says_so(tmp_path, store: Store, caplog):
    settings = Settings(data_dir=tmp_path, fetch_backoff_s=0, fetch_retries=0)
    collector = Collector(settings, store, transport=httpx.MockTransport(unreachable))
    with caplog.at_level(logging.WARNING, logger="trendlens.collect"):
        outcomes = await collector.cycle()
    await collector.aclose()
    assert collector.replaying
    assert "network unreachable" in caplog.text and "replaying the synthetic demo snapshot" in caplog.text
    assert "recorded" not in caplog.text
    by_source = {o.source: o for o in outcomes}
    assert all(o.ok for o in outcomes), {o.source: str(o.error) for o in outcomes if not o.ok}
    assert by_source["reddit"].topics  # replay needs no credentials
    assert len(store.current()) > 200


async def test_a_live_answer_is_used_when_the_network_answers(tmp_path, store: Store):
    settings = Settings(data_dir=tmp_path, fetch_backoff_s=0, sources=["v2ex"])
    body = b'[{"id": 1, "title": "live topic", "url": "https://www.v2ex.com/t/1", "replies": 3}]'
    collector = Collector(settings, store, transport=httpx.MockTransport(lambda r: httpx.Response(200, content=body)))
    outcomes = await collector.cycle()
    await collector.aclose()
    assert not collector.replaying and [t.title for t in outcomes[0].topics] == ["live topic"]


async def test_one_source_down_is_not_a_network_outage(tmp_path, store: Store):
    settings = Settings(data_dir=tmp_path, fetch_backoff_s=0, fetch_retries=0, sources=["v2ex", "zhihu"])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host.endswith("v2ex.com"):
            return httpx.Response(200, content=b"[]")
        raise httpx.ConnectError("down", request=request)

    collector = Collector(settings, store, transport=httpx.MockTransport(handler))
    outcomes = {o.source: o for o in await collector.cycle()}
    await collector.aclose()
    assert not collector.replaying and outcomes["v2ex"].ok and not outcomes["zhihu"].ok


async def test_replay_goes_back_to_live_once_a_probe_answers(tmp_path, store: Store, caplog):
    settings = Settings(data_dir=tmp_path, fetch_backoff_s=0, fetch_retries=0, sources=["v2ex"])
    network = {"up": False}
    probes: list[str] = []
    body = b'[{"id": 1, "title": "live topic", "url": "https://www.v2ex.com/t/1", "replies": 3}]'

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "HEAD":
            probes.append(request.url.host)
        if not network["up"]:
            raise httpx.ConnectError("Name or service not known", request=request)
        return httpx.Response(200, content=body)

    collector = Collector(settings, store, transport=httpx.MockTransport(handler))
    await collector.cycle()
    assert collector.replaying and collector.replay_reason == "live fetches failed: network unreachable"
    assert probes == []  # live fetching needs no probe
    outcomes = await collector.cycle()  # still down: probed, replayed again
    assert collector.replaying and len(probes) == 1 and outcomes[0].ok
    assert outcomes[0].topics[0].title != "live topic"
    network["up"] = True
    with caplog.at_level(logging.WARNING, logger="trendlens.collect"):
        outcomes = await collector.cycle()
    await collector.aclose()
    assert not collector.replaying and collector.replay_reason is None and len(probes) == 2
    assert [t.title for t in outcomes[0].topics] == ["live topic"]
    assert "fetching live data instead of the synthetic demo snapshot" in caplog.text


async def test_offline_mode_never_probes(tmp_path, store: Store):
    settings = Settings(data_dir=tmp_path, offline=True, sources=["v2ex"])
    seen: list[httpx.Request] = []
    collector = Collector(settings, store,
                          transport=httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200)))
    await collector.cycle()
    await collector.cycle()
    await collector.aclose()
    assert collector.replaying and collector.replay_reason == "offline mode" and seen == []


async def test_replay_needs_no_credentials_and_live_again_needs_them_again(tmp_path, store: Store):
    from agent.answers.queries import statuses_of

    settings = Settings(data_dir=tmp_path, fetch_backoff_s=0, fetch_retries=0, sources=["reddit"])
    network = {"up": False}

    def handler(request: httpx.Request) -> httpx.Response:
        if not network["up"]:
            raise httpx.ConnectError("Name or service not known", request=request)
        return httpx.Response(200)

    collector = Collector(settings, store, transport=httpx.MockTransport(handler))
    disabled = (await collector.cycle())[0]  # live: no credentials, so disabled, not a network outage
    assert disabled.status == "disabled" and not collector.replaying
    await collector.switch_to_replay()  # as when every other source's fetch failed to connect
    (replayed,) = await collector.cycle()
    assert collector.replaying and replayed.ok and replayed.topics
    (status,) = statuses_of(collector.sources, [], replaying=collector.replaying)
    assert status.enabled  # what /v1/sources says while replaying
    network["up"] = True
    (live,) = await collector.cycle()
    await collector.aclose()
    assert not collector.replaying and live.status == "disabled" and "TRENDLENS_REDDIT_CLIENT_ID" in str(live.error)
    (status,) = statuses_of(collector.sources, [], replaying=collector.replaying)
    assert not status.enabled
