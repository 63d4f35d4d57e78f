"""`StepDeps`, all a workflow step may use, is met by what the runtime hands the engine."""

from __future__ import annotations

import inspect

import pytest
from typing_extensions import get_protocol_members

from agent.engine.deps import StepDeps
from agent.engine.step_deps import PartsDeps

MEMBERS = sorted(get_protocol_members(StepDeps))


def test_the_protocol_names_what_steps_reach_for():
    assert {"store", "fetch", "rank", "compose_caption", "push", "notify"} <= set(MEMBERS)


@pytest.mark.parametrize("name", MEMBERS)
def test_the_runtimes_deps_have_each_member_the_protocol_names(name):
    assert hasattr(PartsDeps, name) or name in PartsDeps.__dataclass_fields__, f"PartsDeps lacks {name}"


@pytest.mark.parametrize("name", [m for m in MEMBERS if inspect.isfunction(getattr(StepDeps, m, None))])
def test_each_method_takes_the_parameters_the_protocol_gives_it(name):
    wanted, given = inspect.signature(getattr(StepDeps, name)), inspect.signature(getattr(PartsDeps, name))
    assert list(given.parameters) == list(wanted.parameters)
    assert inspect.iscoroutinefunction(getattr(PartsDeps, name)) == inspect.iscoroutinefunction(getattr(StepDeps, name))


def test_the_engine_is_built_on_the_runtimes_deps(runtime):
    assert isinstance(runtime.deps, PartsDeps) and runtime.engine.deps is runtime.deps
