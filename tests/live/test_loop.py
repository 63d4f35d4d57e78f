"""The live loop on its own: an utterance in, a typed LiveResult out, the decision recorded."""

from __future__ import annotations

from agent.live.gating import Decision, GatePolicy
from agent.live.loop import LiveLoop, LiveResult


async def test_a_final_utterance_comes_back_decided_and_captioned(runtime):
    loop = runtime.live
    assert isinstance(loop, LiveLoop)
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10)  # anything relevant enough passes
    title = next(s.topic.title for s in runtime.index.stored.values() if len(s.topic.title) >= 8)
    result = await loop.hear(session, title, now=0.0)
    assert isinstance(result, LiveResult) and isinstance(result.decision, Decision)
    assert result.decision.show and result.caption is not None and result.caption is session.last_caption
    [row] = runtime.sessions.history(session.id)
    assert row["topic_id"] == result.decision.topic_id


async def test_a_partial_transcript_is_heard_but_not_decided(runtime):
    session, _ = runtime.sessions.create("hud-web")
    result = await runtime.live.hear(session, "今年春晚的机器人", final=False, now=0.0)
    assert result == LiveResult() and result.caption is None
    assert "今年春晚的机器人" in session.window.text()
    assert runtime.sessions.history(session.id, shown_only=False) == []
