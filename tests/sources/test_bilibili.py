from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, FetchError, ParseError, UpstreamError
from agent.sources.bilibili import HOTWORD_URL, POPULAR_URL, Bilibili
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetcher

RECORDED = SHARED_UPSTREAM / "bilibili"
HOTWORD = case_path("bilibili", "hotword.json").read_bytes()
POPULAR = case_path("bilibili", "popular.json").read_bytes()



def test_every_real_recording_parses(settings) -> None:
    if not RECORDED.is_dir():
        pytest.skip("no real bilibili recording exists (see PROVENANCE.md)")
    source = Bilibili()
    for path in sorted(RECORDED.glob("*.json")):
        topics = source.parse(path.read_bytes())
        assert topics and topics[0].title and topics[0].heat and topics[0].heat > 0
        assert all(source.link_allowed(t.url) for t in topics)


def test_parser_recognises_both_shapes(settings) -> None:
    source = Bilibili()
    words, videos = source.parse(HOTWORD), source.parse(POPULAR)
    assert words[0].item_id == "w:春晚机器人" and words[0].title == "春晚机器人扭秧歌" and words[0].rank == 1
    assert words[0].url.startswith("https://search.bilibili.com/all?keyword=")
    assert videos[0].item_id.startswith("v:BV1") and videos[0].url == f"https://www.bilibili.com/video/{videos[0].item_id[2:]}"
    assert videos[0].heat == 9812345 and videos[0].heat_text == "9812345 播放"
    assert videos[1].summary is None  # desc "-" means no description
    with pytest.raises(BlockedError, match="-352"):
        source.parse(b'{"code": -352, "message": "-352", "ttl": 1}')
    with pytest.raises(UpstreamError, match="code=-400"):
        source.parse('{"code": -400, "message": "请求错误"}'.encode())
    with pytest.raises(ParseError, match="missing 'list'"):
        source.parse(b'{"code": 0, "data": {"items": []}}')


async def test_fetch_merges_both_lists(settings) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=HOTWORD if str(request.url) == HOTWORD_URL else POPULAR)

    topics = await Bilibili().fetch(fetcher(handler))
    assert sorted(str(r.url) for r in seen) == sorted([HOTWORD_URL, POPULAR_URL])
    assert all(r.headers["Referer"] == "https://www.bilibili.com/" for r in seen)
    assert len(topics) == 35
    assert len({t.item_id for t in topics}) == 35
    assert [t.extra["list"] for t in topics[:1] + topics[-1:]] == ["hotword", "popular"]


async def test_one_failing_list_does_not_sink_the_other(settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == POPULAR_URL:
            return httpx.Response(200, json={"code": -352, "message": "-352", "ttl": 1})
        return httpx.Response(200, content=HOTWORD)

    topics = await Bilibili().fetch(fetcher(handler))
    assert len(topics) == 15 and all(t.item_id.startswith("w:") for t in topics)


async def test_both_lists_failing_raises(settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == HOTWORD_URL:
            return httpx.Response(502)
        return httpx.Response(200, json={"code": -352, "message": "-352"})

    with pytest.raises(FetchError, match="fallbacks failed too: blocked"):
        await Bilibili().fetch(fetcher(handler))


async def test_offline_replay_answers_both_requests(settings) -> None:
    source = Bilibili()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=case_path("bilibili", source.replay_case(request)).read_bytes())

    topics = await source.fetch(fetcher(handler))
    assert len(topics) == 35
