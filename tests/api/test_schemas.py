"""The public bodies (`agent/api/schemas.py`): what a client reads of a decision."""

from __future__ import annotations

import json

import pytest

from agent.api.schemas import DecisionFrame, DecisionOut
from agent.live.gating import Decision

DECISIONS = [
    Decision(show=True, reason="shown", topic_id="weibo:robot", score=0.4172, detail="cleared the bar", at=1.5e9),
    Decision(show=True, reason="replaced", topic_id="weibo:a", score=0.61, detail="held back", at=12.25,
             replaced="c-7", replaced_topic="baidu:b", held_s=3.5),
    Decision(show=False, reason="not_enough_speech", at=3.0),
]


@pytest.mark.parametrize("decision", DECISIONS, ids=lambda d: d.reason)
def test_a_decision_reads_as_it_always_has(decision: Decision) -> None:
    """Field for field and in the same order as the decision's record, `replaced` only when it was."""
    typed = DecisionOut.of(decision)
    assert json.dumps(typed.model_dump(mode="json")) == json.dumps(decision.public())
    assert ("replaced" in typed.model_dump(mode="json")) is (decision.replaced is not None)
    assert ("held_s" in typed.model_dump(mode="json")) is (decision.held_s is not None)


def test_the_socket_frame_carries_the_same_decision() -> None:
    decision = DecisionOut.of(DECISIONS[1])
    frame = DecisionFrame(decision=decision, elapsed_ms=12.3, stages_ms={"rank": 4.25}).model_dump(mode="json")
    assert list(frame) == ["type", "decision", "elapsed_ms", "stages_ms"] and frame["type"] == "decision"
    assert frame["decision"] == DECISIONS[1].public()
    assert DecisionFrame(decision=None, elapsed_ms=0.5, stages_ms={}).model_dump(mode="json")["decision"] is None
