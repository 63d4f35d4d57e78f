"""Watch lists: the words people write, matched as they mean them, one alert per story per group."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient

from agent.errors import ConfigError
from agent.models import Topic
from agent.notify import Notifier
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings
from agent.watch import Watcher, WatchLists, group_matches, parse_watch
from agent.watch.matching import story_text
from tests.notify.receiver import receiver


def matches(rule: str, *titles: str) -> bool:
    [group] = parse_watch(rule)
    return group_matches(group, story_text(titles))


def test_groups_are_parted_by_semicolons_or_lines_and_words_by_spaces() -> None:
    groups = parse_watch("机器人 !广告; 关税 +美国\nAI @3 ^4")
    assert [g.name for g in groups] == ["机器人 !广告", "关税 +美国", "AI"]
    assert (groups[2].cap, groups[2].again_at) == (3, 4)


def test_trendradar_files_part_groups_by_blank_lines() -> None:
    groups = parse_watch("# my words\n华为\n+手机\n!广告\n\n苹果\niPhone\n")
    assert [g.name for g in groups] == ["华为 +手机 !广告", "苹果 iPhone"]


def test_chinese_by_substring_english_by_whole_word() -> None:
    assert matches("机器人", "人形机器人跳舞")
    assert not matches("mac", "A new machine learning model")
    assert matches("mac", "Apple updates the Mac mini")
    assert matches("OpenAI", "openai ships a model")  # case-blind


def test_required_and_excluded_words_in_any_title_of_the_story() -> None:
    assert matches("关税 +美国", "美国宣布加征关税")
    assert not matches("关税 +美国", "欧盟关税新规")
    assert matches("关税 +美国", "欧盟关税新规", "US tariffs: 美国回应")  # another platform's title
    assert not matches("机器人 !广告", "机器人广告刷屏")
    assert matches(r"/iphone\s?1[67]/", "iPhone 17 发布")  # words part at spaces: a regex holds none


def test_a_broken_regex_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="regular expression"):
        parse_watch("/[unclosed/")


def topic(source: str, n: int, title: str) -> Topic:
    return Topic(source=source, item_id=str(n), title=title, rank=n, url=f"https://s.weibo.com/weibo?q={n}")


class FakeIndex:
    """The two things the watcher reads of the topic index: current topics and their story."""

    def __init__(self) -> None:
        self.stored: dict[str, object] = {}
        self.stories: dict[str, str] = {}

    def hold(self, *topics: Topic, story: str | None = None) -> None:
        for t in topics:
            self.stored[t.id] = type("Stored", (), {"topic": t})()
            self.stories[t.id] = story or t.id

    def story_key(self, topic_id: str) -> str:
        return self.stories[topic_id]


async def test_one_alert_per_story_per_group_and_once_more_when_it_spreads(store) -> None:
    index = FakeIndex()
    lists = WatchLists("机器人 ^3; 关税 !广告")
    watcher = Watcher(index, Notifier([]), lists, store)  # type: ignore[arg-type]
    index.hold(topic("weibo", 1, "机器人春晚扭秧歌"), topic("zhihu", 4, "如何看待春晚机器人"), story="s1")
    index.hold(topic("baidu", 2, "关税广告"))
    first = await watcher.check()
    assert [(a.group, a.story_id, a.again) for _, a in first] == [("机器人", "s1", False)]
    assert await watcher.check() == []  # the same story next cycle: nothing
    index.hold(topic("douyin", 7, "机器人扭秧歌"), story="s1")
    [(_, again)] = await watcher.check()
    assert again.again and {p for p, _ in again.places} == {"weibo", "zhihu", "douyin"}
    assert await watcher.check() == []


async def test_a_restart_or_a_second_instance_does_not_alert_a_story_again(store) -> None:
    index = FakeIndex()
    index.hold(topic("weibo", 1, "机器人春晚扭秧歌"), story="s1")
    first = Watcher(index, Notifier([]), WatchLists("机器人"), store)  # type: ignore[arg-type]
    assert [a.story_id for _, a in await first.check()] == ["s1"]
    # the process restarts (or another instance shares the database): the store remembers
    again = Watcher(index, Notifier([]), WatchLists("机器人"), store)  # type: ignore[arg-type]
    assert await again.check() == []
    index.hold(topic("zhihu", 3, "机器人上春晚"), story="s2")
    assert [a.story_id for _, a in await again.check()] == ["s2"]
    # what GET /v1/alerts shows an owner outlives the process too, newest first
    from agent.store.alerts import recent_alerts
    from agent.watch.lists import OPERATOR
    assert [a["story_id"] for a in recent_alerts(store, OPERATOR)] == ["s2", "s1"]


def test_watch_words_on_the_served_lists_alert_once_per_story_within_a_cycle_and_never_for_a_bang_word(
        tmp_path) -> None:
    async def run(watch: str) -> tuple[list[dict], int]:
        with receiver() as r:
            rt = Runtime.build(Settings(data_dir=tmp_path / watch[:2], offline=True, notify_urls=r.url(),
                                        watch=watch), embedder=HashEmbedder())
            await rt.start()
            await rt.collector.cycle()  # one fetch cycle: the listener re-indexes, then alerts
            await rt.watcher.outbox.drain()  # the pushes are the outbox's: the cycle did not wait for them
            stories = {c.story_id for c in rt.watcher.scan()}  # nothing is due twice
            matched = len({rt.index.story_key(s.topic.id) for s in rt.index.stored.values()
                           if "春晚" in s.topic.title})
            await rt.aclose()
        assert not stories
        return r.bodies(), matched

    bodies, matched = asyncio.run(run("春晚"))
    assert matched and len(bodies) == matched and all("春晚" in b["title"] for b in bodies)
    none, _ = asyncio.run(run("春晚 !春晚"))
    assert none == []


def test_each_key_holds_its_own_list_and_alerts(tmp_path) -> None:
    from agent.api.app import create_app
    from harness.apps import AUTH, make_runtime

    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with TestClient(app) as client:
        assert client.put("/v1/watch", json={"watch": "/[bad/"}, headers=AUTH).status_code == 422
        put = client.put("/v1/watch", json={"watch": "春晚; 关税 +美国", "notify_urls": ["json://127.0.0.1:9/k3y5ecret"]},
                         headers=AUTH)
        assert put.status_code == 200 and put.json()["groups"] == ["春晚", "关税 +美国"]
        assert put.json()["channels"] == ["json#1"] and "k3y5ecret" not in put.text
        got = client.get("/v1/watch", headers=AUTH).json()
        assert got["watch"] == "春晚; 关税 +美国"
        assert client.get("/v1/alerts").status_code == 401
    from agent.store import open_store

    store = open_store(runtime.settings)  # read back after a restart, from the store
    try:
        saved = WatchLists("", store=store)
        assert [g.name for o in saved.owners.values() for g in o.groups] == ["春晚", "关税 +美国"]
        assert not (tmp_path / "data" / "watch").exists()  # no file beside the store holds the channel secrets
    finally:
        store.close()


def test_a_list_saved_on_one_instance_is_held_by_another(store, tmp_path) -> None:
    a, b = WatchLists("", store=store), WatchLists("", store=store)
    a.set("k1", "机器人 !广告", [])
    assert "k1" not in b.owners
    b.refresh()  # the watcher does this before every check
    assert [g.name for g in b.owners["k1"].groups] == ["机器人 !广告"]
    a.set("k1", "关税", [])
    b.refresh()
    assert [g.name for g in b.owners["k1"].groups] == ["关税"]


def test_an_older_releases_list_files_move_into_the_store(store, tmp_path) -> None:
    folder = tmp_path / "watch"
    folder.mkdir()
    (folder / "k2.json").write_text('{"watch": "春晚", "notify_urls": []}', encoding="utf-8")
    WatchLists("", store=store, folder=folder)
    assert not list(folder.glob("*.json"))
    assert [g.name for g in WatchLists("", store=store).owners["k2"].groups] == ["春晚"]


def test_a_meaning_is_parsed_beside_words() -> None:
    [group] = parse_watch("~机器人跳舞 ~robots_dancing !广告")
    assert group.meanings == ("机器人跳舞", "robots dancing") and group.any_of == ()
    assert not group_matches(group, story_text(["春晚机器人扭秧歌"]))  # its words are not matched as words
    assert group_matches(group, story_text(["春晚机器人扭秧歌"]), meant=True)
    assert not group_matches(group, story_text(["机器人广告"]), meant=True)  # a ! word still vetoes


class MeaningIndex(FakeIndex):
    """A ranker that matches one description to the robot story, and nothing else past its gate."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[object] = []

    async def rank(self, q) -> list[object]:  # noqa: ANN001
        self.asked.append(q)
        if q.text == "机器人跳舞" and q.gate:
            return [type("Ranked", (), {"topic": self.stored["weibo:1"].topic})()]
        return []


async def test_a_meaning_alerts_the_story_the_ranker_matches_past_its_gate(store) -> None:
    index = MeaningIndex()
    index.hold(topic("weibo", 1, "春晚机器人扭秧歌"), topic("zhihu", 4, "如何看待宇树机器人上春晚"), story="s1")
    index.hold(topic("baidu", 2, "机器人吸尘器降价"))
    watcher = Watcher(index, Notifier([]), WatchLists("~机器人跳舞; ~明天去医院复查"), store)  # type: ignore[arg-type]
    sent = await watcher.check()
    assert [(a.group, a.story_id) for _, a in sent] == [("~机器人跳舞", "s1")]  # not the vacuum cleaner
    assert all(q.gate for q in index.asked)  # every meaning is held to the live gate's evidence
    assert await watcher.check() == []


async def test_a_meaning_is_ranked_once_per_index_generation_for_every_list_holding_it(store) -> None:
    index = MeaningIndex()
    index.view = type("View", (), {"generation": 1})()  # type: ignore[attr-defined]
    index.hold(topic("weibo", 1, "春晚机器人扭秧歌"), story="s1")
    lists = WatchLists("~机器人跳舞", store=store)
    lists.set("k1", "~机器人跳舞 !广告", [])
    lists.set("k2", "~机器人跳舞", [])
    watcher = Watcher(index, Notifier([]), lists, store)  # type: ignore[arg-type]
    sent = await watcher.check()
    await watcher.check()  # the same generation: nothing ranked again
    assert sorted(owner for owner, _ in sent) == ["k1", "k2", "operator"]
    assert [q.text for q in index.asked] == ["机器人跳舞"]
    index.view.generation = 2  # type: ignore[attr-defined]
    await watcher.check()
    assert [q.text for q in index.asked] == ["机器人跳舞", "机器人跳舞"]


def test_a_list_put_on_one_instance_is_read_back_from_another_at_once(tmp_path) -> None:
    from agent.api.app import create_app
    from harness.apps import AUTH, make_runtime

    first, second = make_runtime(tmp_path / "data"), make_runtime(tmp_path / "data")  # one database
    apps = [create_app(rt.settings, runtime=rt, schedule=False, announce_key=False) for rt in (first, second)]
    with TestClient(apps[0]) as a, TestClient(apps[1]) as b:
        assert a.put("/v1/watch", json={"watch": "春晚"}, headers=AUTH).status_code == 200
        assert b.get("/v1/watch", headers=AUTH).json()["groups"] == ["春晚"]
