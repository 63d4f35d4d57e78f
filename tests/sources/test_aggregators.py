"""DailyHotApi and newsnow through `httpx.MockTransport`: routes become sources named for their platforms,
a platform an aggregator serves is fetched once, and other routes are platforms of their own."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from agent.answers.digest import build_digest
from agent.captions import meta_line
from agent.collect.collector import Collector
from agent.platforms import caption_label, forget_platform, known_platforms, platform_name, run_time_platforms
from agent.settings import Settings
from agent.sources import build_sources
from agent.sources.dailyhot import DailyHot
from agent.sources.links import safe_url
from agent.sources.newsnow import Newsnow
from agent.store import SQLiteStore
from tests.conftest import FIXTURES
from tests.sources.mock_http import fetch_with

DAILYHOT = FIXTURES / "sources" / "dailyhot"
NEWSNOW = FIXTURES / "sources" / "newsnow"
BASE = "http://dailyhot.test"


@pytest.fixture(autouse=True)
def _forget_run_time_platforms() -> Iterator[None]:
    before = set(run_time_platforms())
    yield
    for source in run_time_platforms():
        if source not in before:
            forget_platform(source)


def dailyhot_instance(*, weibo_calls: list[str] | None = None, errors: tuple[str, ...] = ()):
    """A DailyHotApi instance serving weibo, 36kr and zhihu from the fixtures; the direct Weibo API too,
    counting what reaches it."""
    files = {"/weibo": "weibo-converted.json", "/36kr": "36kr-synthetic.json", "/zhihu": "zhihu-converted.json",
             "/all": "all-routes.json"}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host.endswith(("weibo.com", "weibo.cn")):
            (weibo_calls if weibo_calls is not None else []).append(str(request.url))
            return httpx.Response(200, json={"ok": 1, "data": {"realtime": [{"word": "direct fetch", "num": 1}]}})
        if request.url.host != "dailyhot.test":
            return httpx.Response(404)
        if request.url.path.strip("/") in errors:
            return httpx.Response(500, content=(DAILYHOT / "error-route.json").read_bytes())
        name = files.get(request.url.path)
        return httpx.Response(200, content=(DAILYHOT / name).read_bytes()) if name else httpx.Response(404)

    return handler


def store_in(tmp_path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "t.sqlite3")


async def cycle(settings: Settings, handler, tmp_path) -> tuple[SQLiteStore, Collector]:
    store = store_in(tmp_path)
    sources = build_sources(settings, transport=httpx.MockTransport(handler))
    collector = Collector(settings, store, sources=sources, transport=httpx.MockTransport(handler),
                          fallback_to_replay=False)
    await collector.cycle()
    await collector.aclose()
    return store, collector


async def test_weibo_and_36kr_routes_are_both_served_36kr_under_its_own_label_and_weibo_once(tmp_path) -> None:
    weibo_calls: list[str] = []
    settings = Settings(data_dir=tmp_path, fetch_retries=0, sources=["weibo", "dailyhot"], dailyhot_url=BASE,
                        dailyhot_routes=["weibo", "36kr"])
    store, collector = await cycle(settings, dailyhot_instance(weibo_calls=weibo_calls), tmp_path)
    assert [s.name for s in collector.sources] == ["weibo", "36kr"]
    assert weibo_calls == []  # the direct fetcher is replaced, not run beside the route
    current = store.current()
    weibo = [t for t in current if t.topic.source == "weibo"]
    kr = [t for t in current if t.topic.source == "36kr"]
    expected = json.loads((DAILYHOT / "weibo-converted.json").read_text("utf-8"))["data"]
    assert len(weibo) == len(expected) and len({t.topic.title for t in weibo}) == len(expected)
    assert all(t.topic.heat is None for t in weibo)  # the route leaves `hot` out: no heat, not 0
    assert len(kr) == 4 and caption_label("36kr") == "36氪" and platform_name("36kr", "en") == "36氪"
    assert meta_line([("36kr", 1)], None, "steady", "zh").startswith("36氪#1")
    heats = {t.topic.title: t.topic.heat for t in kr}
    assert sorted(h for h in heats.values() if h is not None) == [4100.0, 5321.0, 12000.0]
    assert list(heats.values()).count(None) == 1
    # one Weibo row per item in the store and in the digest's stories
    digest = build_digest(store, limit=200)
    titles = [p["title"] for item in digest.items for p in item.platforms if p["source"] == "weibo"]
    assert len(titles) == len(set(titles)) == len(expected)
    assert {p["source"] for item in digest.items for p in item.platforms} == {"weibo", "36kr"}
    # a run-time platform's links are shown on the host its route's links were on, never elsewhere
    kr_links = [p["url"] for item in digest.items for p in item.platforms if p["source"] == "36kr"]
    assert kr_links and all(u and u.startswith("https://www.36kr.com/") for u in kr_links)
    assert safe_url("36kr", "https://evil.example/p/1") is None


async def test_every_route_all_lists_is_read_when_none_is_chosen(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, fetch_retries=0, sources=["dailyhot"], dailyhot_url=BASE)
    store, collector = await cycle(settings, dailyhot_instance(), tmp_path)
    assert [s.name for s in collector.sources] == ["weibo", "36kr", "zhihu"]  # "offline-one" has no path
    assert {t.topic.source for t in store.current()} == {"weibo", "36kr", "zhihu"}
    zhihu = [t.topic for t in store.current() if t.topic.source == "zhihu"]
    assert zhihu and all(t.heat and t.heat > 0 for t in zhihu)  # numeric `hot` is heat, as a direct fetch's


async def test_an_instance_that_cannot_list_its_routes_leaves_one_disabled_source_saying_why(tmp_path) -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    settings = Settings(data_dir=tmp_path, sources=["dailyhot"], dailyhot_url="http://user:secret@dailyhot.test")
    [source] = build_sources(settings, transport=httpx.MockTransport(down))
    reason = source.disabled_reason() or ""
    assert source.name == "dailyhot" and "TRENDLENS_DAILYHOT_ROUTES" in reason and "secret" not in reason


async def test_a_route_that_errors_fails_alone(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, fetch_retries=0, sources=["dailyhot"], dailyhot_url=BASE,
                        dailyhot_routes=["weibo", "36kr"])
    store, collector = await cycle(settings, dailyhot_instance(errors=("weibo",)), tmp_path)
    health = {h.source: h for h in store.health()}
    assert health["weibo"].consecutive_failures == 1 and health["36kr"].last_count == 4
    assert {t.topic.source for t in store.current()} == {"36kr"}


async def test_an_error_envelope_with_status_200_is_an_upstream_error() -> None:
    route = build_sources(Settings(dailyhot_url=BASE, dailyhot_routes=["weibo"], sources=["dailyhot"]))[0]
    body = (DAILYHOT / "error-route.json").read_bytes()
    with pytest.raises(Exception, match="platform error code=500") as caught:
        await fetch_with(route, lambda r: httpx.Response(200, content=body))
    assert getattr(caught.value, "kind", None) == "upstream"


async def test_ten_thousand_items_are_capped_and_parsed_quickly() -> None:
    items = [{"id": n, "title": f"item {n}", "hot": n, "url": f"https://www.36kr.com/p/{n}"} for n in range(10_000)]
    body = json.dumps({"code": 200, "name": "36kr", "title": "36氪", "data": items}).encode()
    route = build_sources(Settings(dailyhot_url=BASE, dailyhot_routes=["36kr"], sources=["dailyhot"]))[0]
    topics = await fetch_with(route, lambda r: httpx.Response(200, content=body))
    assert len(topics) == DailyHot.max_items and topics[0].rank == 1 and topics[-1].rank == DailyHot.max_items


def test_html_in_a_route_title_does_not_reach_a_label() -> None:
    route = build_sources(Settings(dailyhot_url=BASE, dailyhot_routes=["sspai"], sources=["dailyhot"]))[0]
    topics = route.parse((DAILYHOT / "hostile-html.json").read_bytes())
    assert caption_label("sspai") == "少数派" and [t.title for t in topics] == ["效率 工具&工作流", "转义的标签"]


def test_a_bare_parser_registers_no_platform() -> None:
    before = known_platforms()
    DailyHot().parse((DAILYHOT / "36kr-synthetic.json").read_bytes())
    Newsnow().parse((NEWSNOW / "sspai-synthetic.json").read_bytes())
    assert known_platforms() == before


async def test_newsnow_serves_known_platforms_under_their_ids_and_labels_others_as_told(tmp_path) -> None:
    files = {"weibo": "weibo-converted.json", "baidu": "baidu-converted.json", "sspai": "sspai-synthetic.json"}

    def handler(request: httpx.Request) -> httpx.Response:
        name = files.get(request.url.params.get("id", ""))
        if request.url.host != "newsnow.test" or request.url.path != "/api/s" or name is None:
            return httpx.Response(500, content=(NEWSNOW / "error.json").read_bytes())
        return httpx.Response(200, content=(NEWSNOW / name).read_bytes())

    settings = Settings(data_dir=tmp_path, fetch_retries=0, sources=["newsnow", "baidu"], newsnow_url="http://newsnow.test",
                        newsnow_sources=["weibo", "baidu", "sspai=少数派", "nope"])
    store, collector = await cycle(settings, handler, tmp_path)
    assert [s.name for s in collector.sources] == ["weibo", "baidu", "sspai", "nope"]
    current = store.current()
    assert {t.topic.source for t in current} == {"weibo", "baidu", "sspai"}
    assert caption_label("sspai") == "少数派"
    weibo = [t.topic for t in current if t.topic.source == "weibo"]
    assert weibo and all(t.heat and t.heat >= 1e4 for t in weibo)  # "85万" is heat
    sspai = {t.topic.title: t.topic.heat for t in current if t.topic.source == "sspai"}
    assert list(sspai.values()).count(None) == 2  # "3小时前" and "12:30" say when, not how hot
    assert {h.source: h for h in store.health()}["nope"].consecutive_failures == 1


def test_the_first_aggregator_named_serves_a_platform_both_offer() -> None:
    settings = Settings(sources=["newsnow", "dailyhot", "weibo"], newsnow_url="http://n.test",
                        newsnow_sources=["weibo"], dailyhot_url=BASE, dailyhot_routes=["weibo", "36kr"])
    sources = build_sources(settings)
    assert [(s.name, type(s).__name__) for s in sources] == [("weibo", "Newsnow"), ("36kr", "DailyHot")]


def test_without_a_url_each_aggregator_is_one_disabled_source() -> None:
    sources = build_sources(Settings(sources=["dailyhot", "newsnow", "weibo"]))
    assert [s.name for s in sources] == ["dailyhot", "newsnow", "weibo"]
    assert "TRENDLENS_DAILYHOT_URL" in (sources[0].disabled_reason() or "")


def test_a_run_time_platform_is_labelled_in_v1_sources_and_v1_topics(tmp_path) -> None:
    from fastapi.testclient import TestClient

    from agent.api import create_app
    from agent.ranking import HashEmbedder
    from agent.runtime import Runtime
    from harness.apps import AUTH, KEY

    settings = Settings(data_dir=tmp_path, fetch_retries=0, sources=["dailyhot"], dailyhot_url=BASE,
                        dailyhot_routes=["weibo", "36kr"], api_keys=KEY)
    transport = httpx.MockTransport(dailyhot_instance())
    runtime = Runtime.build(settings, embedder=HashEmbedder(), transport=transport)
    with TestClient(create_app(settings, runtime=runtime, schedule=False, announce_key=False)) as client:
        before = {s["name"]: s["title"] for s in client.get("/v1/sources", headers=AUTH).json()["items"]}
        assert before == {"weibo": "微博 (DailyHotApi)", "36kr": "36kr (DailyHotApi)"}  # not fetched yet
        client.portal.call(runtime.collector.cycle)
        after = {s["name"]: s["title"] for s in client.get("/v1/sources", headers=AUTH).json()["items"]}
        assert after == {"weibo": "微博 (DailyHotApi)", "36kr": "36氪 (DailyHotApi)"}  # the route's own title
        topics = client.get("/v1/topics", params={"source": "36kr"}, headers=AUTH).json()["items"]
        assert topics and {t["platform"] for t in topics} == {"36氪"}


async def test_a_newsnow_answer_with_an_info_object_is_read_under_the_operators_label(tmp_path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=(NEWSNOW / "info-object-synthetic.json").read_bytes())

    settings = Settings(data_dir=tmp_path, fetch_retries=0, sources=["newsnow"], newsnow_url="http://newsnow.test",
                        newsnow_sources=["36kr-quick=36氪快讯"])
    store, collector = await cycle(settings, handler, tmp_path)
    assert [s.title for s in collector.sources] == ["36氪快讯 (newsnow)"]
    topics = [t.topic for t in store.current()]
    assert len(topics) == 3 and {t.public()["platform"] for t in topics} == {"36氪快讯"}
    assert meta_line([("36kr-quick", 1)], None, "steady", "zh").startswith("36氪快讯#1")


@pytest.mark.parametrize(("reported", "own", "foreign"), [
    ("https://m.36kr.com/hot-list-m", "https://www.36kr.com/p/1", "https://36kr.com.evil.example/p/1"),
    ("https://someone.github.io/hot", "https://someone.github.io/p/1", "https://other.github.io/p/1"),
    ("https://blog.example.co.uk/hot", "https://blog.example.co.uk/p/1", "https://shop.co.uk/p/1"),
])
def test_a_route_s_reported_link_makes_its_host_the_platform_s_domain_never_a_shared_suffix(
        reported: str, own: str, foreign: str) -> None:
    body = json.loads((DAILYHOT / "36kr-synthetic.json").read_bytes())
    body["link"] = reported
    for item in body["data"]:
        item["url"] = item["mobileUrl"] = own
    route = build_sources(Settings(dailyhot_url=BASE, dailyhot_routes=["36kr"], sources=["dailyhot"]))[0]
    topics = route.parse(json.dumps(body).encode())
    assert topics and safe_url(topics[0].source, own) == own
    assert safe_url(topics[0].source, foreign) is None


def test_an_instance_whose_route_list_never_ends_is_read_to_the_size_cap_only(tmp_path) -> None:
    """/all is read as it streams and cut at the fetch size cap: an answer without end costs the cap,
    and the source says in one line that it could not list the routes."""
    chunk = b"[" + b" " * 65_535
    sent = []

    class Endless(httpx.SyncByteStream):
        def __iter__(self):
            for _ in range(2_000):  # 128 MiB if read whole
                sent.append(1)
                yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Endless(), headers={"Content-Type": "application/json"})

    settings = Settings(data_dir=tmp_path, sources=["dailyhot"], dailyhot_url=BASE)
    [source] = build_sources(settings, transport=httpx.MockTransport(handler))
    assert len(sent) * len(chunk) <= settings.fetch.max_body_bytes + 2 * len(chunk)
    reason = source.disabled_reason() or ""
    assert "/all" in reason and "\n" not in reason
