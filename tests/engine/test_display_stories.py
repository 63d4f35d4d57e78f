"""While a caption is on screen, a headline naming a person its story names is of that story for the display,
and so is a headline the newest line meets only on words the table said under the caption.

Synthetic headlines and lines, written here: two lists tell one singer's night in headlines no story link joins.
"""

from __future__ import annotations

from types import SimpleNamespace

from agent.engine.steps import GateParams, RunContext, Stop, gate
from agent.engine.values import Candidates, Said, Silenced
from agent.live.gating import Candidate, SessionGate
from agent.models import Topic
from agent.ranking import Ranked
from agent.ranking.window import ConversationWindow

TOPICS = {"weibo:1": Topic(source="weibo", item_id="1", title="李雷新歌今晚首唱"),
          "douyin:2": Topic(source="douyin", item_id="2", title="李雷后台说一点都不紧张"),
          "douyin:3": Topic(source="douyin", item_id="3", title="韩梅梅后台说一点都不紧张"),
          "douyin:4": Topic(source="douyin", item_id="4", title="大模型接上舞台机器人了"),
          "douyin:5": Topic(source="douyin", item_id="5", title="韩梅梅推着机器人出场")}
STORIES = {"weibo:1": "s-song", "douyin:2": "s-backstage", "douyin:3": "s-other", "douyin:4": "s-model",
           "douyin:5": "s-robot-act"}


class _Deps:
    def story_key(self, topic_id: str) -> str:
        return STORIES[topic_id]

    def members_of(self, stories: set[str]) -> set[str]:
        return {t for t, s in STORIES.items() if s in stories}

    def ranked_again(self, topic_id: str, score: float) -> Ranked | None:
        return Ranked(id=topic_id, topic=TOPICS[topic_id], score=score, components={})


def _ranked(topic_id: str, score: float) -> Ranked:
    return Ranked(id=topic_id, topic=TOPICS[topic_id], score=score, components={})


def _session(*lines: tuple[str, float]) -> SimpleNamespace:
    window = ConversationWindow()
    for text, ts in lines:
        window.add(text, ts)
    return SimpleNamespace(gate=SessionGate(), window=window)


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
    session = _session()
    session.gate._show(Candidate(topic_id="weibo:1", score=0.6, key="s-song"), 0.0)
    said = await _decide(session, "douyin:2", 7.0)  # read by now: another story would replace the caption
    assert said.startswith("display_locked: the line goes on about weibo:1")
    assert session.gate.held_back is None
    assert await _decide(session, "douyin:3", 7.5) == "replaced"  # a headline naming someone else


async def test_once_the_caption_is_gone_the_same_person_s_other_headline_goes_up() -> None:
    session = _session()
    session.gate._show(Candidate(topic_id="weibo:1", score=0.6, key="s-song"), 0.0)
    assert await _decide(session, "douyin:2", 60.0) == "shown"


async def test_a_headline_met_only_on_words_said_under_the_caption_does_not_replace_it() -> None:
    # the act is on screen; the next line goes on about it, and meets another headline on 机器人 alone,
    # a word the line that put the caption up said already
    session = _session(("韩梅梅推着个机器人出来了，吓我一跳", 0.0), ("十年前她自己演机器人，现在真机器人演她了", 7.0))
    session.gate._show(Candidate(topic_id="douyin:5", score=0.6, key="s-robot-act"), 0.0)
    said = await _decide(session, "douyin:4", 7.0)
    assert said.startswith("display_locked: the line goes on about douyin:5")
    # a line that meets it on a word of its own does replace the caption
    session = _session(("韩梅梅推着个机器人出来了，吓我一跳", 0.0), ("听说大模型都接上机器人了", 7.0))
    session.gate._show(Candidate(topic_id="douyin:5", score=0.6, key="s-robot-act"), 0.0)
    assert await _decide(session, "douyin:4", 7.0) == "replaced"
