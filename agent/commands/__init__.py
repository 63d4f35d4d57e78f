"""Registry of CLI subcommands (explicit; order = order in `trendlens --help`)."""

from __future__ import annotations

from types import ModuleType

from . import demo, doctor, fetching, keys, mcp, parse, rank, serve, workflows

COMMANDS: tuple[ModuleType, ...] = (fetching, parse, rank, workflows, serve, mcp, keys, demo, doctor)
