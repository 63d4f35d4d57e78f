"""While a caption is on screen, a headline naming a person its story names is of that story for the display.

Synthetic headlines, written here: two lists tell one singer's night in headlines no story link joins.
"""

from __future__ import annotations

from types import SimpleNamespace

from agent.engine.steps import GateParams, RunContext, Stop, gate
from agent.engine.values import Candidates, Said, Silenced
from agent.live.gating import Candidate, SessionGate
from agent.models import Topic
from agent.ranking import Ranked

TOPICS = {"weibo:1": Topic(source="weibo", item_id="1", title="李雷新歌今晚首唱"),
          "douyin:2": Topic(source="douyin", item_id="2", title="李雷后台说一点都不紧张"),
          "douyin:3": Topic(source="douyin", item_id="3", title="韩梅梅后台说一点都不紧张")}
STORIES = {"weibo:1": "s-song", "douyin:2": "s-backstage", "douyin:3": "s-other"}


class _Deps:
    def story_key(self, topic_id: str) -> str:
        return STORIES[topic_id]

    def members_of(self, stories: set[str]) -> set[str]:
        return {t for t, s in STORIES.items() if s in stories}

    def ranked_again(self, topic_id: str, score: float) -> Ranked | None:
        return Ranked(id=topic_id, topic=TOPICS[topic_id], score=score, components={})


def _ranked(topic_id: str, score: float) -> Ranked:
    return Ranked(id=topic_id, topic=TOPICS[topic_id], score=score, components={})


async def _decide(session: SimpleNamespace, topic_id: str, now: float) -> str:
    ctx = RunContext(deps=_Deps(), workflow="live", trigger="utterance")  # type: ignore[arg-type]
    said = Said(session=session, text="…", now=now)  # type: ignore[arg-type]
    try:
        chosen, _ = await gate(ctx, Candidates(said, [_ranked(topic_id, 0.6)]), GateParams())
    except Stop as stop:
        assert isinstance(stop.value, Silenced)
        return f"{stop.value.decision.reason}: {stop.value.decision.detail}"
    return chosen.decision.reason


async def test_a_headline_naming_the_person_on_screen_goes_on_about_that_caption() -> None:
    session = SimpleNamespace(gate=SessionGate())
    session.gate._show(Candidate(topic_id="weibo:1", score=0.6, key="s-song"), 0.0)
    said = await _decide(session, "douyin:2", 7.0)  # read by now: another story would replace the caption
    assert said.startswith("display_locked: the line goes on about weibo:1")
    assert session.gate.held_back is None
    assert await _decide(session, "douyin:3", 7.5) == "replaced"  # a headline naming someone else


async def test_once_the_caption_is_gone_the_same_person_s_other_headline_goes_up() -> None:
    session = SimpleNamespace(gate=SessionGate())
    session.gate._show(Candidate(topic_id="weibo:1", score=0.6, key="s-song"), 0.0)
    assert await _decide(session, "douyin:2", 60.0) == "shown"
