"""What the workflow tests share: the shipped workflows' folder and writing a workflow file."""

from __future__ import annotations

from pathlib import Path

from agent.resources import workflows_dir

__all__ = ["WORKFLOWS", "write"]

WORKFLOWS = workflows_dir()


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path
