from __future__ import annotations

import httpx
import pytest

from agent.errors import BlockedError, ParseError, UpstreamError
from agent.sources.tieba import Tieba
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetcher

RECORDED = SHARED_UPSTREAM / "tieba"
TOPICS = (case_path("tieba", "topic-list.json")).read_bytes()
URL = "https://tieba.baidu.com/hottopic/browse/topicList"



def test_every_real_recording_parses(settings) -> None:
    if not RECORDED.is_dir():
        pytest.skip("no real tieba recording exists (see PROVENANCE.md)")
    source = Tieba()
    for path in sorted(RECORDED.glob("*.json")):
        topics = source.parse(path.read_bytes())
        assert topics and topics[0].title and topics[0].heat and topics[0].heat > 0
        assert all(source.link_allowed(t.url) for t in topics)


def test_parse_fixture_and_failures(settings) -> None:
    source = Tieba()
    topics = source.parse(TOPICS)
    assert len(topics) == 20
    assert topics[0].title == "春晚机器人扭秧歌" and topics[0].rank == 1 and topics[0].heat == 3215487
    assert topics[0].summary and topics[0].item_id.isdigit()
    assert all(source.link_allowed(t.url) for t in topics)
    # a topic without a usable topic_url gets one built from its id
    built = source.parse(b'{"errno":0,"data":{"bang_topic":{"topic_list":'
                         b'[{"topic_id":7,"topic_name":"x","topic_url":"javascript:void(0)"}]}}}')
    assert built[0].url == "https://tieba.baidu.com/hottopic/browse/hottopic?topic_id=7&topic_name=x"
    with pytest.raises(UpstreamError, match="errno=110003"):
        source.parse('{"errno": 110003, "errmsg": "请求参数错误"}'.encode())
    with pytest.raises(ParseError, match="data.bang_topic"):
        source.parse(b'{"errno": 0, "data": {}}')
    with pytest.raises(BlockedError):
        source.parse("<html><title>百度安全验证</title></html>".encode())


async def test_fetch_requests_the_topic_list(settings) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=TOPICS)

    topics = await Tieba().fetch(fetcher(handler))
    assert [str(r.url) for r in seen] == [URL]
    assert seen[0].headers["Referer"] == "https://tieba.baidu.com/"
    assert len(topics) == 20


async def test_fetch_reports_the_error_envelope(settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"errno": 300000, "errmsg": "非法请求", "data": None})

    with pytest.raises(UpstreamError, match="非法请求"):
        await Tieba().fetch(fetcher(handler))
