"""Workflow files: loading, the schema, validation with file:line, short and long step forms."""

from __future__ import annotations

import json

import pytest

from agent.engine.spec import SCHEMA_HEADER, WorkflowSpec, load_workflow, write_schema
from agent.engine.steps import STEPS

from .helpers import WORKFLOWS, write


def test_shipped_workflows_load_and_carry_the_schema_header():
    for name in ("live_captions", "refresh_sources", "daily_digest"):
        path = WORKFLOWS / f"{name}.yaml"
        assert path.read_text(encoding="utf-8").splitlines()[0] == SCHEMA_HEADER
        assert load_workflow(path, steps=STEPS).name == name


def test_schema_file_is_up_to_date(tmp_path):
    fresh = tmp_path / "schema.json"
    write_schema(fresh, STEPS)
    on_disk = json.loads((WORKFLOWS / "workflow.schema.json").read_text(encoding="utf-8"))
    assert on_disk == json.loads(fresh.read_text(encoding="utf-8")), "run `trendlens workflows schema`"


@pytest.mark.parametrize(("steps", "valid"), [
    (["gate", {"rank": {"top_k": 3}}, {"use": "push", "with": {"display": "hud"}, "timeout_s": 2}], True),
    ([{"rank": {"top_kk": 3}}], False),  # a misspelt parameter
    ([{"use": "digest", "with": {"format": "pdf"}}], False),  # a value the step does not know
    ([{"push": {"top_k": 3}}], False),  # another step's parameter
    (["teleport"], False),
])
def test_the_schema_checks_each_steps_parameters(steps, valid):
    import jsonschema
    import yaml

    schema = json.loads((WORKFLOWS / "workflow.schema.json").read_text(encoding="utf-8"))
    for path in WORKFLOWS.glob("*.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)
    doc = {"name": "x", "trigger": "manual", "steps": steps}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    assert (errors == []) is valid, errors


@pytest.mark.parametrize(("body", "line", "message"), [
    ("name: bad\ntrigger: manual\nsteps:\n  - gate\n", 4,
     "step 'gate' takes Candidates, but its trigger starts it from Start"),
    ("name: bad\ntrigger: {event: utterance}\nsteps:\n  - rank\n  - caption\n", 5,
     "step 'caption' takes Chosen, but the step before makes Candidates"),
    ("name: bad\ntrigger: manual\nsteps:\n  - digest\n  - push\n", 5,
     "step 'push' takes Captioned, but the step before makes DigestMade"),
])
def test_a_chain_that_does_not_connect_is_refused_before_it_runs(tmp_path, body, line, message):
    from agent.engine.spec import WorkflowError

    path = write(tmp_path, "bad.yaml", body)
    with pytest.raises(WorkflowError) as exc:
        load_workflow(path, steps=STEPS)
    assert str(exc.value) == f"{path}:{line}: {message}"


def test_short_and_long_step_forms():
    spec = WorkflowSpec.model_validate({"name": "x", "trigger": "manual", "steps": [
        "gate", {"rank": {"top_k": 3}}, {"use": "push", "with": {"display": "hud"}, "timeout_s": 2, "retries": 1}]})
    assert [(s.use, s.params) for s in spec.steps] == [
        ("gate", {}), ("rank", {"top_k": 3}), ("push", {"display": "hud"})]
    assert spec.steps[2].timeout_s == 2 and spec.steps[2].retries == 1


@pytest.mark.parametrize(("body", "line", "message"), [
    ("name: bad\ntrigger: manual\nsteps:\n  - rank: {top_k: 0}\n", 4, "top_k"),
    ("name: bad\ntrigger: manual\nsteps:\n  - gate\n  - teleport\n", 5, "unknown step 'teleport'; valid:"),
    ("name: bad\ntrigger: {cron: 'every day'}\nsteps: [gate]\n", 2, "crontab"),
    ("name: bad\ntrigger: manual\nsteps:\n  - rank: {top_k: [\n", 5, "invalid YAML"),
    ("name: Bad Name\ntrigger: manual\nsteps: [gate]\n", 1, "name"),
    ("name: bad\ntrigger: manual\nsteps: []\n", 3, "steps"),
])
def test_malformed_files_name_file_line_and_problem(tmp_path, body, line, message):
    from agent.engine.spec import WorkflowError

    path = write(tmp_path, "bad.yaml", body)
    with pytest.raises(WorkflowError) as exc:
        load_workflow(path, step_names={n: s.Params for n, s in STEPS.items()})
    text = str(exc.value)
    assert text.startswith(f"{path}:{line}:") and message in text and "\n" not in text

