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


async def test_a_line_about_the_caption_on_screen_is_ranked_against_it_and_keeps_it_up(runtime: Runtime):
    """The caption still on screen is not left out of the next line's ranking as a story shown moments ago:
    a line going on about it holds the display for it, whatever else it matches; once the caption is gone
    its story is left out again."""
    session, _ = runtime.sessions.create("hud-web")
    title = _title(runtime)
    first = await runtime.handle_utterance(session, title, now=0.0)
    assert first.decision is not None and first.decision.show
    again = await runtime.handle_utterance(session, title, now=3.0)
    assert again.decision is not None and again.decision.reason == "display_locked"
    assert again.decision.detail.startswith(f"the line goes on about {first.decision.topic_id}")
    assert session.gate.held_back is None
    later = await runtime.handle_utterance(session, title, now=60.0)
    assert later.decision is not None and not later.decision.show
    assert "goes on about" not in later.decision.detail
