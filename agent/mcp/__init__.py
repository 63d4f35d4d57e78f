"""TrendLens for agents, over the Model Context Protocol: tools and resources (`server`), served on
stdio by `trendlens mcp` and on `serve` at `/mcp` behind the API key (`agent/api/mcp.py`)."""

from __future__ import annotations

from .server import build_server

__all__ = ["build_server"]
