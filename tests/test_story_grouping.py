from __future__ import annotations

from agent.ranking import HashEmbedder
from agent.story_grouping import assignments, cluster_topics

from .conftest import make_topic


def cycle(heat_scale: float, extra: bool = False):
    items = [
        make_topic("weibo", "w1", "哈尔滨公安悬赏通缉3名美国特工", heat=9e5 * heat_scale),
        make_topic("douyin", "d7", "哈尔滨通缉3名美国特工", heat=5e6 * heat_scale),
        make_topic("baidu", "b3", "公安悬赏通缉3名美国特工", heat=7e5 * heat_scale),
        make_topic("weibo", "w2", "大熊猫芦芦去世 死因公布", heat=3e5),
        make_topic("douyin", "d9", "奔跑吧13定档了", heat=1e5),
    ]
    if extra:
        items.append(make_topic("zhihu", "z1", "如何看待哈尔滨公安悬赏通缉3名美国特工", heat=1e4))
    return items


def test_three_platforms_become_one_cluster_with_stable_id() -> None:
    emb = HashEmbedder()
    first = cluster_topics(cycle(1.0), embedder=emb)
    agents = first[0]
    assert set(agents.platforms) == {"weibo", "douyin", "baidu"}
    assert len(agents.members) == 3 and agents.heat == 9e5 + 5e6 + 7e5
    assert agents.title == "哈尔滨通缉3名美国特工"  # hottest member
    assert len(first) == 3
    # next fetch cycle: order shuffled, heats changed, one more platform joins
    second_items = list(reversed(cycle(2.0, extra=True)))
    second = cluster_topics(second_items, embedder=emb, previous=assignments(first))
    again = next(c for c in second if "weibo:w1" in c.member_ids)
    assert again.id == agents.id and "zhihu" in again.platforms
    # even without the previous map the id is derived from members, not from order or time
    third = cluster_topics(list(reversed(cycle(3.0))))
    assert next(c for c in third if "weibo:w1" in c.member_ids).id == agents.id
    ids = {c.id for c in second}
    assert len(ids) == len(second)


def test_unrelated_topics_stay_apart() -> None:
    items = [
        make_topic("weibo", "a", "美滥施关税乱上加乱"),
        make_topic("douyin", "b", "外交部回应美豁免部分产品关税"),
        make_topic("baidu", "c", "国内油价或出现近三年来最大跌幅"),
    ]
    clusters = cluster_topics(items, embedder=HashEmbedder())
    assert len(clusters) == 3
