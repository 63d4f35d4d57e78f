"""`ReleaseTimers` and `DueSweep`: a held-back caption goes up when the one before it has been read,
with no new line; a session erased meanwhile gets nothing."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from agent.live.gating import GatePolicy
from agent.live.release import DueSweep, ReleaseTimers
from agent.text import is_han

from .helpers import two_stories


async def test_on_the_wall_clock_the_held_back_caption_reaches_the_display_with_no_new_line(runtime):
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10, min_read_s=0.5, held_back_s=0.5, replace_margin=-10)
    (_, first), (second_story, second) = two_stories(runtime)
    assert (await runtime.live.hear(session, first)).decision.show
    assert (await runtime.live.hear(session, second)).decision.reason == "display_locked"
    assert len(runtime.live.timers) == 1
    up = runtime.hud.last_caption(session.id)
    for _ in range(40):
        await asyncio.sleep(0.05)
        if runtime.hud.last_caption(session.id) is not up:
            break
    shown = runtime.hud.last_caption(session.id)
    assert shown is not None and shown is not up and runtime.index.story_key(shown.topic_id) == second_story
    assert len(runtime.live.timers) == 0


async def test_an_erased_session_gets_no_held_back_caption(runtime):
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10, min_read_s=0.3, held_back_s=0.3, replace_margin=-10)
    (_, first), (_, second) = two_stories(runtime)
    await runtime.live.hear(session, first)
    await runtime.live.hear(session, second)
    assert len(runtime.live.timers) == 1
    await runtime.erase_session(session.id)
    assert len(runtime.live.timers) == 0
    await asyncio.sleep(0.5)
    assert runtime.sessions.history(session.id, shown_only=False) == []



async def test_a_session_has_one_pending_release_and_a_new_due_replaces_it():
    released: list[tuple[str, float]] = []
    loop = asyncio.get_running_loop()

    async def release(session):
        released.append((session.id, loop.time()))

    timers = ReleaseTimers(release)
    session = SimpleNamespace(id="s1")
    timers.set(session, due=0.0)  # type: ignore[arg-type]
    timers.set(session, due=None)  # type: ignore[arg-type]  # nothing held back any more
    assert len(timers) == 0
    timers.set(session, due=1e12)  # type: ignore[arg-type]
    timers.set(session, due=0.0)  # type: ignore[arg-type]  # due now: replaces the far one
    assert len(timers) == 1
    await asyncio.sleep(0.05)
    assert [sid for sid, _ in released] == ["s1"] and len(timers) == 0
    timers.close()


async def test_a_release_that_fails_is_logged_without_the_speech_and_the_loop_goes_on(caplog):
    async def release(session):
        raise RuntimeError("said: 春晚机器人扭秧歌")

    timers = ReleaseTimers(release)
    timers.set(SimpleNamespace(id="s1"), due=0.0)  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    assert "s1" in caplog.text and "RuntimeError" in caplog.text and "春晚" not in caplog.text
    timers.close()


async def test_the_sweep_releases_each_claimed_session_and_skips_an_erased_one():
    sessions = {"s1": SimpleNamespace(id="s1")}  # "s2" was erased after it was claimed
    released: list[str] = []

    async def claim(now: float) -> list[str]:
        return ["s1", "s2"] if not released else []

    async def find(session_id: str):
        return sessions.get(session_id)

    async def release(session):
        released.append(session.id)

    sweep = DueSweep(claim, find, release, every_s=0.01)
    sweep.start()
    for _ in range(50):
        await asyncio.sleep(0.01)
        if released:
            break
    await asyncio.sleep(0.05)
    await sweep.aclose()
    assert released == ["s1"]


async def test_a_recogniser_s_sentence_is_captioned_whole_when_no_more_of_it_comes(runtime):
    """A recogniser that cuts sentences at pauses: a piece that may go on is not decided on its own; the
    sentence is, once nothing more of it came within the wait, and its caption reaches the display with no
    new line."""
    session, _ = runtime.sessions.create("hud-web")
    session.gate.policy = GatePolicy(relevance_offset=-10, sentence_wait_s=0.3)
    story, title = next((runtime.index.story_key(s.topic.id), s.topic.title) for s in runtime.index.stored.values()
                        if 8 <= len(s.topic.title) <= 30 and all(is_han(ch) for ch in s.topic.title[:4]))
    first = await runtime.live.hear(session, "我跟你们说啊")  # too little to decide on
    assert first.decision.reason == "not_enough_speech" and len(runtime.live.timers) == 0
    rest = await runtime.live.hear(session, title)  # the rest of the sentence, within a second: joined
    assert rest.decision.reason == "not_enough_speech" and "decided whole" in rest.decision.detail
    assert not rest.captions and runtime.hud.last_caption(session.id) is None and len(runtime.live.timers) == 1
    for _ in range(40):
        await asyncio.sleep(0.05)
        if runtime.hud.last_caption(session.id) is not None:
            break
    shown = runtime.hud.last_caption(session.id)
    assert shown is not None and runtime.index.story_key(shown.topic_id) == story
    assert len(runtime.live.timers) == 0
    for _ in range(40):  # the decision is stored just after the caption went out
        history = runtime.sessions.history(session.id)
        if history:
            break
        await asyncio.sleep(0.05)
    last = history[-1]["decision"]
    assert last["show"] and last["chars"] == len("我跟你们说啊" + title)  # decided on the sentence, whole
