"""Workflow files: YAML validated by pydantic, errors pointing at file:line.

A workflow is a trigger plus a list of steps. Steps accept short forms:

    steps:
      - gate                         # just the name
      - rank: {top_k: 5}             # name: params
      - use: push                    # long form with a policy
        with: {display: session}
        timeout_s: 2
        retries: 2
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import ConfigError
from .values import Said, Start

__all__ = ["SCHEMA_HEADER", "StepLike", "StepSpec", "WorkflowError", "WorkflowSpec", "load_workflow", "start_type",
           "write_schema"]

SCHEMA_HEADER = "# yaml-language-server: $schema=./workflow.schema.json"


class WorkflowError(ConfigError):
    """A workflow file that cannot be loaded; the message starts with file:line."""


class IntervalTrigger(BaseModel):
    model_config = ConfigDict(extra="forbid")
    interval_s: int = Field(ge=1, description="run every N seconds")


class CronTrigger(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cron: str = Field(description="crontab expression, e.g. '0 8 * * *' (UTC unless timezone is set)")
    timezone: str = "UTC"

    @field_validator("cron")
    @classmethod
    def _valid_cron(cls, v: str) -> str:
        from apscheduler.triggers.cron import CronTrigger as APCron

        try:
            APCron.from_crontab(v)
        except ValueError as exc:
            raise ValueError(f"invalid crontab expression: {exc}") from None
        return v


class EventTrigger(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event: Literal["utterance"] = Field(description="run when this event arrives on a session")


def _trigger_kind(value: Any) -> str | None:
    if isinstance(value, str):
        return "manual"
    if isinstance(value, dict):
        return next((k for k in ("interval_s", "cron", "event") if k in value), None)
    if isinstance(value, BaseModel):
        return next((k for k in ("interval_s", "cron", "event") if hasattr(value, k)), None)
    return None


# Tagged by the key present, so an error speaks of the trigger the user meant to write.
Trigger = Annotated[
    Annotated[IntervalTrigger, Tag("interval_s")] | Annotated[CronTrigger, Tag("cron")]
    | Annotated[EventTrigger, Tag("event")] | Annotated[Literal["manual"], Tag("manual")],
    Discriminator(_trigger_kind, custom_error_type="trigger_kind",
                  custom_error_message="trigger must be 'manual', {interval_s: N}, {cron: '...'} "
                                       "or {event: utterance}"),
]


class StepLike(Protocol):
    """What the loader needs of a registered step (`agent.engine.steps.Step`)."""

    @property
    def Params(self) -> type[BaseModel]: ...  # noqa: N802 - the step's parameter model

    @property
    def makes(self) -> type | None: ...

    def inputs(self, params: BaseModel) -> tuple[type, ...]: ...


class StepSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    use: str = Field(description="step name from the step registry")
    # the raw mapping as parsed; `load_workflow` replaces it with the step's validated Params model
    params: Any = Field(default_factory=dict, alias="with")
    timeout_s: float | None = Field(default=None, gt=0)
    retries: int = Field(default=0, ge=0, le=10)
    backoff_s: float = Field(default=0.2, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _short_forms(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"use": data}
        if isinstance(data, dict) and "use" not in data and len(data) == 1:
            (name, params), = data.items()
            return {"use": name, "with": params or {}}
        return data


class WorkflowSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9_]{1,64}$")
    description: str = ""
    enabled: bool = True
    trigger: Trigger
    steps: list[StepSpec] = Field(min_length=1)


def _locate(node: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """Line (1-based) of the YAML node at a pydantic error location, best effort."""
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == key), None)
            if match is None and key in ("with", "params"):
                match = next((v for k, v in node.value), None)  # short form {name: params}
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            break
        if node is None:
            break
        line = node.start_mark.line + 1
    return line


def start_type(spec: WorkflowSpec) -> type:
    """The value a run of this workflow starts from."""
    return Said if getattr(spec.trigger, "event", None) == "utterance" else Start


def load_workflow(path: Path, *, step_names: dict[str, type[BaseModel]] | None = None,
                  steps: Mapping[str, StepLike] | None = None) -> WorkflowSpec:
    """Load and validate one workflow file; every problem is a WorkflowError naming file:line.

    With `steps` (the registry), each step's params become its validated Params model and the
    chain is checked: each step must accept the value the step before it makes.
    """
    if steps is not None:
        step_names = {name: step.Params for name, step in steps.items()}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkflowError(f"{path}: cannot read: {exc}") from None
    try:
        root = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise WorkflowError(f"{where}: invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise WorkflowError(f"{path}:1: a workflow must be a mapping with name, trigger and steps")
    try:
        spec = WorkflowSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        line = _locate(root, tuple(err["loc"]))
        field_path = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("function-", "literal[")))
        raise WorkflowError(f"{path}:{line or 1}: {field_path or 'workflow'}: {err['msg']}") from None
    if step_names is not None:
        for index, step in enumerate(spec.steps):
            params_model = step_names.get(step.use)
            if params_model is None:
                line = _locate(root, ("steps", index))
                raise WorkflowError(f"{path}:{line}: unknown step {step.use!r}; valid: {', '.join(sorted(step_names))}")
            try:
                step.params = params_model.model_validate(step.params)
            except ValidationError as exc:
                err = exc.errors()[0]
                line = _locate(root, ("steps", index, "with", *err["loc"]))
                where = ".".join(str(p) for p in err["loc"])
                raise WorkflowError(f"{path}:{line}: step {step.use!r}: {where}: {err['msg']}") from None
    if steps is not None:
        current = start_type(spec)
        for index, step in enumerate(spec.steps):
            registered = steps[step.use]
            accepted = registered.inputs(step.params)
            if not issubclass(current, accepted):
                line = _locate(root, ("steps", index))
                before = (f"the step before makes {current.__name__}" if index
                          else f"its trigger starts it from {current.__name__}")
                raise WorkflowError(f"{path}:{line}: step {step.use!r} takes "
                                    f"{' or '.join(t.__name__ for t in accepted)}, but {before}")
            current = registered.makes or current
    return spec


def _step_schemas(steps: Mapping[str, StepLike], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """One schema per step and form (`- gate`, `- rank: {...}`, `- use: rank` + `with:`), so an
    editor checks each step's parameters: the union is discriminated by the step's name."""
    policy = {k: v for k, v in StepSpec.model_json_schema()["properties"].items()
              if k in ("timeout_s", "retries", "backoff_s")}
    variants: list[dict[str, Any]] = []
    for name in sorted(steps):
        params = steps[name].Params.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(params.pop("$defs", {}))
        title = params.get("title", name)
        defs[title] = params
        ref = {"$ref": f"#/$defs/{title}"}
        if not params.get("required"):
            variants.append({"const": name, "title": f"{name} (no parameters)"})
        variants.append({"type": "object", "title": f"{name}: params", "properties": {name: ref},
                         "required": [name], "additionalProperties": False})
        variants.append({"type": "object", "title": f"use: {name}",
                         "properties": {"use": {"const": name}, "with": ref, **policy},
                         "required": ["use"], "additionalProperties": False})
    return variants


def write_schema(path: Path, steps: Mapping[str, StepLike] | None = None) -> None:
    """Write the JSON Schema that editors use to check workflow files (step parameters included)."""
    schema = WorkflowSpec.model_json_schema()
    schema["title"] = "TrendLens workflow"
    if steps is not None:
        defs = schema.setdefault("$defs", {})
        defs.pop("StepSpec", None)
        schema["properties"]["steps"]["items"] = {"oneOf": _step_schemas(steps, defs)}
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
