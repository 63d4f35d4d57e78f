from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker, RankerEntry, RankQuery, TopicPrior
from agent.ranking.ranker import Query

ROOT = Path(__file__).resolve().parents[2]
RELEVANCE = ROOT / "fixtures" / "relevance"

TITLES = [
    ("weibo", "cw-robot", "春晚机器人扭秧歌"),
    ("weibo", "cw-magic", "刘谦春晚魔术揭秘"),
    ("douyin", "ph-mi15", "小米15 Ultra发布 影像全面升级"),
    ("baidu", "oil", "国内油价或出现近三年来最大跌幅"),
    ("hn", "gpt5", "OpenAI releases GPT-5"),
    ("google", "pope", "Cardinal Robert Prevost elected Pope Leo XIV"),
    ("google", "eggs", "Egg prices hit record high amid bird flu"),
    ("reddit", "skyrim", "Skyrim in a nutshell"),
]


def relevance_query(text: Query, **opts: Any) -> RankQuery:
    """A query without the heat prior and MMR unless `opts` turn them on: the ranker's relevance order,
    which most tests here read."""
    return RankQuery(text=text, **{"prior": False, "mmr": False, **opts})


def make_topic(source: str, item_id: str, title: str, heat: float | None = None) -> Topic:
    return Topic(source=source, item_id=item_id, title=title, heat=heat)


@pytest.fixture
def topics() -> list[Topic]:
    return [make_topic(s, i, t, heat=1000.0 * (k + 1)) for k, (s, i, t) in enumerate(TITLES)]


@pytest.fixture
def hash_ranker(topics: list[Topic]) -> Ranker:
    return Ranker(HashEmbedder(), topics)


__all__ = ["RELEVANCE", "RankerEntry", "TopicPrior", "make_topic", "relevance_query"]
