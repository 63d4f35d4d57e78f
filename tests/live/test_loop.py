"""The live loop on its own: an utterance in, a typed LiveResult out, the decision recorded."""

from __future__ import annotations

import pytest

from agent.live.gating import Decision, GatePolicy
from agent.live.loop import LiveLoop, LiveResult

from .helpers import two_stories


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


async def test_a_meme_said_while_the_last_caption_is_read_is_captioned_on_the_next_line(runtime):
    """Three lines 3 s apart through the whole loop: the second meme is held back while the first caption is
    read, and goes up, with its own caption, on the third line, which matches nothing."""
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10, min_read_s=6, replace_margin=-10)
    titles = []
    for s in runtime.index.stored.values():
        key = runtime.index.story_key(s.topic.id)
        if len(s.topic.title) >= 8 and key not in {k for k, _ in titles}:
            titles.append((key, s.topic.title))
    (_, first), (second_story, second) = titles[:2]
    assert (await loop_hear(runtime, session, first, 0.0)).decision.show
    held = (await loop_hear(runtime, session, second, 3.0)).decision
    assert held.reason == "display_locked" and "to read" in held.detail
    session.gate.policy = GatePolicy(relevance_offset=10, min_read_s=6, replace_margin=-10)  # nothing passes now
    shown = await loop_hear(runtime, session, "嗯嗯，来来来大家先吃菜吧", 6.0)
    assert shown.decision.reason == "replaced" and "held back" in shown.decision.detail
    assert runtime.index.story_key(shown.decision.topic_id) == second_story
    assert shown.caption is not None and shown.caption is session.last_caption


async def test_the_last_meme_of_a_conversation_goes_up_when_the_caption_before_it_is_read(runtime):
    """On a caller's own clock: nobody speaks after the second meme; it goes up the moment the first
    caption has been read (its headline's reading time), and not before; the record keeps no words and
    no length for that decision."""
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10, min_read_s=6, replace_margin=-10)
    (_, first), (second_story, second) = two_stories(runtime)
    await loop_hear(runtime, session, first, 0.0)
    assert (await loop_hear(runtime, session, second, 3.0)).decision.reason == "display_locked"
    due = session.gate.due()  # the first caption's headline read at the wearer's pace, at most 6 s
    assert due is not None and 1.8 <= due <= 6.0
    assert await runtime.live.release(session, before=due) == LiveResult()  # a line said then comes first
    late = await runtime.live.release(session, before=9.0)
    assert late.decision is not None and late.decision.reason == "replaced" and late.decision.at == due
    assert late.decision.held_s == pytest.approx(due - 3.0)  # waited from the line that said it
    assert runtime.index.story_key(late.decision.topic_id) == second_story
    assert late.caption is not None and late.caption is session.last_caption
    assert await runtime.live.release(session, before=100.0) == LiveResult()  # once
    row = runtime.sessions.history(session.id)[-1]
    assert row["decision"]["reason"] == "replaced" and row["decision"]["chars"] == 0


async def loop_hear(runtime, session, text: str, now: float) -> LiveResult:
    return await runtime.live.hear(session, text, now=now)


async def test_a_sentence_streamed_as_partials_and_pieces_is_captioned_once_it_is_whole(runtime):
    """A recogniser's pieces and the partials of their rest, on the service's clock: each partial of the rest
    keeps the sentence waiting, the window holds the sentence once (no partial twice), and the caption goes up
    for the whole when nothing more came."""
    from agent.text import is_han

    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10, sentence_wait_s=0.6)
    story, title = next((runtime.index.story_key(s.topic.id), s.topic.title) for s in runtime.index.stored.values()
                        if 10 <= len(s.topic.title) <= 30 and all(is_han(ch) for ch in s.topic.title))
    head, tail = title[:5], title[5:]
    loop = runtime.live
    assert (await loop.hear(session, "我跟你们说啊", now=100.0)).decision.reason == "not_enough_speech"
    piece = await loop.hear(session, head, now=100.5)  # joined to the line before: this recogniser cuts
    assert piece.decision.reason == "not_enough_speech" and not piece.captions
    assert session.gate.due() == pytest.approx(101.1)
    assert await loop.hear(session, tail[:2], final=False, now=100.9) == LiveResult()  # the rest begins
    assert session.gate.due() == pytest.approx(101.5)
    assert await loop.release(session, before=101.2) == LiveResult()  # not due yet: nothing decided
    rest = await loop.hear(session, tail, now=101.3)
    assert not rest.captions and session.window.newest() == "我跟你们说啊" + title
    whole = await loop.release(session, before=float("inf"))
    assert whole.decision.show and whole.caption is not None
    assert runtime.index.story_key(whole.decision.topic_id) == story and whole.decision.at == pytest.approx(101.9)
