"""Running a workflow: each step under its timeout and retry policy, every run recorded."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ConfigError, TrendLensError, UnknownNameError
from ..metrics import add_stage, timed
from ..models import utcnow
from ..store.runs import recent_runs, save_run
from .spec import StepSpec, WorkflowError, WorkflowSpec, load_workflow, start_type
from .steps import STEPS, RunContext, Stop
from .values import Said, Start, Value

if TYPE_CHECKING:
    from .deps import StepDeps

__all__ = ["RunRecord", "StepOutcome", "WorkflowEngine"]

log = logging.getLogger("trendlens.engine")

Status = Literal["ok", "stopped", "error"]


@dataclass(frozen=True, kw_only=True)
class StepOutcome:
    step: str
    status: Literal["ok", "stopped", "error", "skipped"]
    elapsed_ms: float
    attempts: int = 1
    detail: str = ""


@dataclass(kw_only=True)
class RunRecord:
    workflow: str
    trigger: str
    started_at: str
    finished_at: str = ""
    status: Status = "ok"
    steps: list[StepOutcome] = field(default_factory=list)
    error: str | None = None
    session_id: str | None = None  # the session an utterance run spoke for: erasing it erases the run
    result: Value | None = None  # the last value the run made, or the one a Stop carried; set when it ends

    def public(self) -> dict[str, Any]:
        return {"workflow": self.workflow, "trigger": self.trigger, "started_at": self.started_at,
                "finished_at": self.finished_at, "status": self.status, "error": self.error,
                "steps": [s.__dict__ for s in self.steps]}


class WorkflowEngine:
    """Loads workflows from a folder and runs them; one bad file never hides the others."""

    def __init__(self, deps: StepDeps, folder: Path, *, record: bool = True) -> None:
        self.deps, self.folder, self.record = deps, folder, record
        self.workflows: dict[str, WorkflowSpec] = {}
        self.errors: dict[str, str] = {}
        self.reload()

    def reload(self) -> None:
        self.workflows.clear()
        self.errors.clear()
        for path in sorted(self.folder.glob("*.y*ml")):
            try:
                spec = load_workflow(path, steps=STEPS)
            except WorkflowError as exc:
                self.errors[path.name] = str(exc)
                log.error("%s", exc)
                continue
            if spec.name in self.workflows:
                self.errors[path.name] = f"{path}:1: duplicate workflow name {spec.name!r}"
                log.error("%s", self.errors[path.name])
                continue
            self.workflows[spec.name] = spec

    def get(self, name: str) -> WorkflowSpec:
        try:
            return self.workflows[name]
        except KeyError:
            raise UnknownNameError("workflow", name, list(self.workflows)) from None

    def for_event(self, event: str) -> list[WorkflowSpec]:
        return [w for w in self.workflows.values()
                if w.enabled and not isinstance(w.trigger, str) and getattr(w.trigger, "event", None) == event]

    async def run(self, name: str, *, trigger: str = "manual", value: Value | None = None) -> RunRecord:
        """Run a workflow from `value` (a `Said` for utterance workflows; `Start()` by default)."""
        spec = self.get(name)
        value = Start() if value is None else value
        if not isinstance(value, start_type(spec)):
            raise ConfigError(f"workflow {spec.name!r} starts from {start_type(spec).__name__}, "
                              f"not {type(value).__name__}")
        ctx = RunContext(deps=self.deps, workflow=spec.name, trigger=trigger)
        record = RunRecord(workflow=spec.name, trigger=trigger, started_at=utcnow().isoformat(),
                           session_id=value.session.id if isinstance(value, Said) else None)
        for step_spec in spec.steps:
            value, outcome = await self._step(ctx, step_spec, value)
            record.steps.append(outcome)
            add_stage(step_spec.use, outcome.elapsed_ms / 1000)  # the decision's stage, when it is one
            if outcome.status != "ok":
                record.status = "stopped" if outcome.status == "stopped" else "error"
                record.error = f"{outcome.step}: {outcome.detail}" if outcome.status == "error" else None
                break
        record.finished_at = utcnow().isoformat()
        record.result = value
        if record.status == "error":
            log.warning("workflow %s failed: %s", spec.name, record.error)
        if self.record:
            with timed("run_write"):
                await asyncio.to_thread(self._save, record)
        return record

    async def _step(self, ctx: RunContext, step_spec: StepSpec, value: Value) -> tuple[Value, StepOutcome]:
        """One step under its timeout and retry policy: the value it made (a stopped step's: the one its
        Stop carried, else `value`; a failed step's: `value`), and how it went."""
        step = STEPS[step_spec.use]
        started = time.perf_counter()
        attempts = 0
        while True:
            attempts += 1
            try:
                # a timeout on this task, not `wait_for`'s task of its own: under load each task hand-off
                # waits a turn of the busy event loop, twice per step and four steps per decision
                async with asyncio.timeout(step_spec.timeout_s):  # None: no limit
                    made, detail = await step.run(ctx, value, step_spec.params)
                return made, StepOutcome(step=step_spec.use, status="ok", attempts=attempts,
                                         elapsed_ms=(time.perf_counter() - started) * 1000, detail=detail)
            except Stop as stop:
                return (stop.value if stop.value is not None else value), StepOutcome(
                    step=step_spec.use, status="stopped", attempts=attempts,
                    elapsed_ms=(time.perf_counter() - started) * 1000, detail=stop.reason)
            except (TimeoutError, TrendLensError, OSError) as exc:
                if attempts <= step_spec.retries:
                    await asyncio.sleep(step_spec.backoff_s * 2 ** (attempts - 1))
                    continue
                detail = (f"timed out after {step_spec.timeout_s:g}s" if isinstance(exc, TimeoutError)
                          else str(exc))
                return value, StepOutcome(step=step_spec.use, status="error", attempts=attempts,
                                          elapsed_ms=(time.perf_counter() - started) * 1000, detail=detail)

    def _save(self, record: RunRecord) -> None:
        try:
            save_run(self.deps.store, workflow=record.workflow, trigger=record.trigger,
                     started_at=record.started_at, finished_at=record.finished_at, status=record.status,
                     error=record.error, steps=[s.__dict__ for s in record.steps], session_id=record.session_id)
        except TrendLensError as exc:  # a full disk must not stop captions; say so once per run
            log.error("could not record workflow run: %s", exc)

    def recent_runs(self, limit: int = 20, workflow: str | None = None) -> list[dict[str, Any]]:
        return recent_runs(self.deps.store, limit, workflow)
