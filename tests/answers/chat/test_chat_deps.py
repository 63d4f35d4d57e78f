"""The chat answers from `ChatDeps` alone: a few rows handed in, with no runtime, store or model behind them."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.answers.chat import answer_question
from agent.models import Topic
from agent.ranking import Ranked, RankQuery
from agent.store import StoredTopic
from agent.stories.linking import Story

SEEN = "2026-01-28T12:00:00+00:00"


def _row(rank: int, title: str, heat: float) -> StoredTopic:
    topic = Topic(source="weibo", item_id=str(rank), title=title, rank=rank, heat=heat, lang="zh")
    return StoredTopic(topic=topic, first_seen=SEEN, last_seen=SEEN, velocity=None, observations=2)


@dataclass
class OneIndex:
    """A `TopicReader` over one platform's list: no cross-platform stories, and no ranker."""

    rows: list[StoredTopic]

    @property
    def stored(self) -> dict[str, StoredTopic]:
        return {r.topic.id: r for r in self.rows}

    @property
    def clusters(self) -> dict[str, Story]:
        return {}

    async def rank(self, q: RankQuery) -> list[Ranked]:
        return []

    def story_key(self, topic_id: str) -> str:
        return topic_id

    def cluster_list(self) -> list[Story]:
        return []


@dataclass
class OneList:
    """`ChatDeps` over that list, with the heat history given and no LLM."""

    rows: list[StoredTopic]
    heats: dict[str, list[float]] = field(default_factory=dict)
    llm = None

    @property
    def index(self) -> OneIndex:
        return OneIndex(self.rows)

    async def heat_history(self, topic_id: str) -> list[float]:
        return self.heats.get(topic_id, [])


ROWS = [_row(1, "春晚机器人扭秧歌", 4_900_000), _row(2, "沈腾马丽春晚小品", 3_500_000),
        _row(3, "除夕夜多地烟花秀", 2_400_000)]


async def test_a_platform_question_is_answered_from_the_rows_handed_in():
    answer = await answer_question(OneList(ROWS), "微博上现在什么最火？")
    assert answer.intent == "PlatformList"
    lines = answer.text.splitlines()
    assert lines[0] == "微博现在的前3名："
    assert [t.title for t in answer.topics] == ["春晚机器人扭秧歌", "沈腾马丽春晚小品", "除夕夜多地烟花秀"]
    assert "春晚机器人扭秧歌" in lines[1] and "490万" in lines[1]


async def test_a_story_question_finds_its_title_and_tells_its_heat_history():
    deps = OneList(ROWS, heats={"weibo:3": [1_000_000, 2_400_000]})
    answer = await answer_question(deps, "除夕夜多地烟花秀是怎么回事")
    assert [t.title for t in answer.topics] == ["除夕夜多地烟花秀"]
    assert answer.text.startswith("「除夕夜多地烟花秀」：在微博第3；热度240万")
    assert "（100万 → 240万）" in answer.text  # the history the deps gave
