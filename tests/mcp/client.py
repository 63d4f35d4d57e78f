"""The MCP SDK's own client against our server: a `ClientSession` over stdio (a `trendlens mcp`
subprocess) or over streamable HTTP (a real `serve`), and what a user reads off a tool result."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"trending", "story", "glasses_preview", "new_or_rising", "digest", "search_history", "heat_over_time",
         "compare_periods"}
RESOURCES = {"trendlens://digest/today", "trendlens://sources"}


def stdio_server(data_dir: Path, *args: str) -> StdioServerParameters:
    """`python -m agent mcp ARGS` on `data_dir`, ranking lexically (starts in a second, no model load)."""
    env = {"TRENDLENS_DATA_DIR": str(data_dir), "TRENDLENS_EMBEDDER": "lexical", "PYTHONPATH": str(ROOT),
           "PYTHONUNBUFFERED": "1"}
    if os.environ.get("TRENDLENS_DATABASE_URL"):  # the suite's --database=postgresql run
        env["TRENDLENS_DATABASE_URL"] = os.environ["TRENDLENS_DATABASE_URL"]
    return StdioServerParameters(command=sys.executable, args=["-m", "agent", "mcp", *args], cwd=str(data_dir),
                                 env=env)


@asynccontextmanager
async def over_stdio(params: StdioServerParameters, log: Path) -> AsyncIterator[ClientSession]:
    """An initialised session with the subprocess; its stderr (logs) goes to `log`."""
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def over_http(url: str, key: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
            streamable_http_client(url + "/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    """(text, structured result) of a tool call that must succeed."""
    result = await session.call_tool(tool, arguments)
    text = "".join(c.text for c in result.content if c.type == "text")
    assert not result.is_error, f"{tool}({arguments}) failed: {text}"
    assert isinstance(result.structured_content, dict), result
    return text, result.structured_content


async def fails(session: ClientSession, tool: str, **arguments: Any) -> str:
    """The error text of a tool call that must fail as a tool error (not a protocol error, not a crash)."""
    result: CallToolResult = await session.call_tool(tool, arguments)
    text = "".join(c.text for c in result.content if c.type == "text")
    assert result.is_error, f"{tool}({arguments}) should have failed: {text}"
    return text


async def resource(session: ClientSession, uri: str) -> Any:
    read = await session.read_resource(uri)
    (content,) = read.contents
    assert content.mime_type == "application/json"
    return json.loads(content.text)  # type: ignore[union-attr]


async def check_listing(session: ClientSession) -> None:
    """Every tool is listed with an actionable description and typed input and output schemas."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 80, tool.name
        assert tool.input_schema["type"] == "object" and tool.output_schema, tool.name
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
        assert tool.annotations and tool.annotations.read_only_hint is True
    assert "enum" in tools["trending"].input_schema["properties"]["platform"]
    assert tools["glasses_preview"].input_schema["required"] == ["line"]
    listed = {str(r.uri) for r in (await session.list_resources()).resources}
    assert listed == RESOURCES
