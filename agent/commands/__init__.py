"""Registry of CLI subcommands (explicit; order = order in `trendlens --help`)."""

from __future__ import annotations

from types import ModuleType

from . import demo, fetching, parse, rank, serve

COMMANDS: tuple[ModuleType, ...] = (fetching, parse, rank, serve, demo)
