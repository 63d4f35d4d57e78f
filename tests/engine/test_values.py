"""The values between workflow steps: frozen, and one `Value` union that covers every step's types."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from agent.engine.steps import STEPS, PushParams
from agent.engine.values import Fetched, Silenced, Start, Value

VALUES = typing.get_args(Value)


@pytest.mark.parametrize("value_type", VALUES, ids=lambda t: t.__name__)
def test_every_value_is_a_frozen_dataclass(value_type):
    assert dataclasses.is_dataclass(value_type) and value_type.__dataclass_params__.frozen


def test_a_value_cannot_be_changed_once_made():
    fetched = Fetched(statuses={"weibo": "ok"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        fetched.statuses = {}  # type: ignore[misc]


def test_the_value_union_covers_what_every_registered_step_takes_and_makes():
    declared = {Start, Silenced}  # what a run starts from without a step, and what a silent live run ends with
    for step in STEPS.values():
        declared.update(step.accepts)
        if step.makes is not None:
            declared.add(step.makes)
    for key in ("caption", "digest"):  # push narrows what it takes by its params
        declared.update(STEPS["push"].inputs(PushParams(key=key)))
    outside, unused = declared - set(VALUES), set(VALUES) - declared
    assert not outside and not unused, f"step types outside Value: {outside}; Value members no step uses: {unused}"
