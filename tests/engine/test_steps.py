"""The step registry: every registered step named in the workflow schema, each name once."""

from __future__ import annotations

import json

import pytest

from agent.engine.steps import STEPS, Step, _Params
from agent.errors import DuplicateNameError, UnknownNameError
from agent.resources import workflows_dir


@pytest.mark.parametrize("name", list(STEPS))
def test_every_registered_step_is_in_the_shipped_schema(name):
    import jsonschema

    schema = json.loads((workflows_dir() / "workflow.schema.json").read_text(encoding="utf-8"))
    doc = {"name": "x", "trigger": "manual", "steps": [name]}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(doc)) == []


def test_an_unknown_step_lists_the_registered_ones():
    with pytest.raises(UnknownNameError, match="unknown step 'teleport'; valid: caption, digest, fetch, filter"):
        STEPS["teleport"]


def test_a_second_step_of_one_name_is_refused():
    async def noop(ctx, value, params):  # pragma: no cover - never run
        return value, ""

    with pytest.raises(DuplicateNameError, match="step 'gate' is registered already"):
        STEPS.register("gate", Step("gate", _Params, noop, "another gate"))
    assert STEPS["gate"].doc != "another gate"
