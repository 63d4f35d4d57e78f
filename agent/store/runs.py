"""Workflow runs in the store: one row per run, with its steps, and the latest read back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .base import Store

__all__ = ["recent_runs", "save_run"]


def save_run(store: Store, *, workflow: str, trigger: str, started_at: str, finished_at: str, status: str,
             error: str | None, steps: Sequence[dict[str, Any]], session_id: str | None) -> None:
    with store.transaction() as db:
        db.execute(
            "INSERT INTO workflow_runs (workflow, trigger, started_at, finished_at, status, error, steps, "
            "session_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (workflow, trigger, started_at, finished_at, status, error, json.dumps(list(steps), ensure_ascii=False),
             session_id))


def recent_runs(store: Store, limit: int = 20, workflow: str | None = None) -> list[dict[str, Any]]:
    """The latest runs, newest first, each with its steps."""
    sql = "SELECT * FROM workflow_runs" + (" WHERE workflow = ?" if workflow else "")
    sql += " ORDER BY id DESC LIMIT ?"
    rows = store.query(sql, (workflow, limit) if workflow else (limit,))
    return [{**dict(r), "steps": json.loads(r["steps"])} for r in rows]
