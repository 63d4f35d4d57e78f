"""The live loop asks the ranker once per utterance, and the ranker's gate is the only relevance bar."""

from __future__ import annotations

import pytest

from agent.runtime import Runtime


def _title(runtime: Runtime) -> str:
    return next(s.topic.title for s in runtime.index.stored.values() if len(s.topic.title) >= 8)


@pytest.mark.parametrize(("offset", "shown"), [(-10.0, True), (10.0, False)])
async def test_the_frequency_offset_moves_the_one_relevance_gate(runtime: Runtime, offset: float, shown: bool):
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = type(session.gate.policy)(relevance_offset=offset)
    out = await runtime.handle_utterance(session, _title(runtime), now=0.0)
    assert out.decision is not None and out.decision.show is shown
    if not shown:  # nothing passed the ranker's gate, so the timing gate had no candidate
        assert out.decision.reason == "no_candidate"


async def test_one_encode_per_utterance(runtime: Runtime):
    session, _ = runtime.sessions.create("hud-web")
    assert runtime.index.ranker is not None and runtime.index.ranker.encoder is not None
    before = runtime.index.ranker.encoder.encodes
    await runtime.handle_utterance(session, "今年春晚的机器人扭秧歌你们看了吗", now=0.0)
    await runtime.handle_utterance(session, "那个机器人是宇树的吧 跳得真整齐", now=30.0)
    assert runtime.index.ranker.encoder.encodes - before == 2  # the window and the newest line share vectors
