"""`Runtime`: the composition root builds each part once, wires them, and cannot be rewired after."""

from __future__ import annotations

import dataclasses

import pytest

from agent.runtime import Runtime, UtteranceResult


async def test_the_runtime_cannot_be_rewired_once_built(runtime: Runtime):
    with pytest.raises(dataclasses.FrozenInstanceError):
        runtime.index = None  # type: ignore[misc]


async def test_each_part_is_made_once_and_shared_by_the_parts_that_use_it(runtime: Runtime):
    assert runtime.engine.deps is runtime.deps
    assert runtime.deps.index is runtime.index and runtime.deps.store is runtime.store
    assert runtime.composer is runtime.deps.composer


async def test_an_utterance_comes_back_with_its_captions_decision_and_stage_times(runtime: Runtime):
    session, _ = runtime.sessions.create("hud-web")
    result = await runtime.handle_utterance(session, "今年春晚的机器人扭秧歌你们看了吗")
    assert isinstance(result, UtteranceResult)
    assert result.decision is not None and result.decision.show and len(result.captions) == 1
    assert result.stages_ms and all(ms >= 0 for ms in result.stages_ms.values())
