from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from agent.errors import FetchError, ParseError
from agent.sources.hackernews import ALGOLIA_URL, FIREBASE, HackerNews
from harness.required import need_shared
from tests.conftest import SHARED_UPSTREAM, case_path
from tests.sources.mock_http import fetcher

RECORDED = SHARED_UPSTREAM / "hackernews"



def test_every_real_recording_parses(settings) -> None:
    need_shared("upstream/hackernews")
    files = sorted(RECORDED.glob("*.json"))
    assert files
    source = HackerNews()
    for path in files:
        if path.name.startswith("topstories-"):
            # 500 ids and nothing else: no titles to show, so it must not read as zero topics
            with pytest.raises(ParseError, match="an id list has no titles"):
                source.parse(path.read_bytes())
            continue
        topics = source.parse(path.read_bytes())
        assert len(topics) == 1
        if path.name == "item-8863-2022-03.json":
            story = topics[0]
            assert story.title == "My YC app: Dropbox - Throw away your USB drive"
            assert story.heat == 104 and story.heat_text == "104 points"
            assert story.url == "https://news.ycombinator.com/item?id=8863"
            assert story.extra["link"] == "http://www.getdropbox.com/u/2/screencast.html"
        assert topics[0].heat and topics[0].heat > 0
        assert all(source.link_allowed(t.url) for t in topics)


def test_parser_recognises_each_shape(settings) -> None:
    source = HackerNews()
    algolia = source.parse(case_path("hackernews", "front_page.json").read_bytes())
    assert len(algolia) == 19 and algolia[0].title.startswith("DeepSeek open-sources")
    assert all(t.url.startswith("https://news.ycombinator.com/item?id=") for t in algolia)
    assert algolia[0].extra["link"].startswith("https://github.com/")
    ask = next(t for t in algolia if t.title.startswith("Ask HN"))
    assert ask.summary and "<i>" not in ask.summary and '"Computers"' in ask.summary
    assert ask.extra["link"] == ask.url  # no url of its own: the discussion is the link
    assert source.parse(b'{"id": 1, "type": "story", "title": "gone", "deleted": true}') == []
    with pytest.raises(ParseError, match="'comment'"):
        source.parse(b'{"id": 2, "type": "comment", "text": "hi"}')
    with pytest.raises(ParseError, match="null"):
        source.parse(b"null")


def _firebase(ids: list[int], *, fail: set[int] = frozenset(), log: list[str] | None = None):
    state = {"now": 0, "max": 0}

    async def handler(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        if log is not None:
            log.append(url)
        if url == f"{FIREBASE}/topstories.json":
            return httpx.Response(200, json=ids)
        story_id = int(url.rsplit("/", 1)[1].split(".")[0])
        state["now"] += 1
        state["max"] = max(state["max"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        if story_id in fail:
            return httpx.Response(500)
        return httpx.Response(200, json={"id": story_id, "type": "story", "title": f"Story {story_id}",
                                         "score": 100, "descendants": 3, "url": f"https://example.com/{story_id}"})

    return handler, state


async def test_fetch_reads_the_top_30_items_concurrently_and_skips_failures(settings) -> None:
    log: list[str] = []
    handler, state = _firebase(list(range(1, 41)), fail={2}, log=log)
    topics = await HackerNews().fetch(fetcher(handler))
    assert log[0] == f"{FIREBASE}/topstories.json"
    assert len(log) == 31  # the id list + the top 30 items, no more
    assert state["max"] > 1  # items were in flight together
    assert len(topics) == 29 and 2 not in {int(t.item_id) for t in topics}
    assert [t.rank for t in topics] == list(range(1, 30))
    assert topics[0].url == "https://news.ycombinator.com/item?id=1"
    assert topics[0].extra["link"] == "https://example.com/1"


async def test_fetch_falls_back_to_algolia(settings) -> None:
    log: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        log.append(str(request.url))
        if request.url.host == "hn.algolia.com":
            return httpx.Response(200, content=case_path("hackernews", "front_page.json").read_bytes())
        return httpx.Response(503)

    topics = await HackerNews().fetch(fetcher(handler))
    assert log == [f"{FIREBASE}/topstories.json", ALGOLIA_URL]
    assert len(topics) == 19


async def test_fetch_fails_loudly_when_every_way_fails(settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    with pytest.raises(FetchError, match="fallbacks failed too"):
        await HackerNews().fetch(fetcher(handler))


async def test_offline_replay_yields_the_demo_front_page(settings) -> None:
    source = HackerNews()

    def handler(request: httpx.Request) -> httpx.Response:
        case = source.replay_case(request)
        return httpx.Response(200, content=case_path("hackernews", case).read_bytes()) if case else httpx.Response(404)

    topics = await source.fetch(fetcher(handler))
    ids = json.loads(case_path("hackernews", "topstories.json").read_text())
    assert len(topics) == len(ids) == 20
    assert [t.item_id for t in topics] == [str(i) for i in ids]
    assert source.replay_case(httpx.Request("GET", f"{FIREBASE}/item/1.json")) is None
    assert source.replay_case(httpx.Request("GET", ALGOLIA_URL)) == "front_page.json"
