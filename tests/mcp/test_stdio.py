"""`trendlens mcp` as a desktop agent runs it: a subprocess on stdio, driven by the MCP SDK's `ClientSession`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from agent.settings import Settings
from agent.store import open_store
from harness.realdata import current_lists, need_upstream, seed_real_days

from .checks import check_bad_arguments, check_real_day, check_synthetic
from .client import TOOLS, check_listing, over_stdio, stdio_server


async def test_a_fresh_data_dir_fetches_then_answers_every_tool_on_the_synthetic_snapshot(tmp_path: Path):
    data = tmp_path / "fresh"
    data.mkdir()
    async with over_stdio(stdio_server(data, "--offline"), tmp_path / "mcp.log") as session:
        await check_listing(session)
        await check_synthetic(session)
    # the tool calls kept nothing of what was asked: no session, no decision, no line of conversation
    store = open_store(Settings(data_dir=data))
    try:
        assert store.query("SELECT count(*) AS n FROM sessions")[0]["n"] == 0
        assert store.query("SELECT count(*) AS n FROM decisions")[0]["n"] == 0
    finally:
        store.close()


async def test_bad_arguments_are_tool_errors_and_the_server_answers_on(tmp_path: Path):
    data = tmp_path / "d"
    data.mkdir()
    async with over_stdio(stdio_server(data, "--offline"), tmp_path / "mcp.log") as session:
        await check_bad_arguments(session)


async def test_every_tool_on_a_real_recorded_day(tmp_path: Path):
    need_upstream()
    data = tmp_path / "real"
    settings = seed_real_days(data)
    async with over_stdio(stdio_server(data, "--no-fetch"), tmp_path / "mcp.log") as session:
        await check_listing(session)
        await check_real_day(session, current_lists(settings))


def test_logs_go_to_stderr_and_stdout_stays_the_protocol(tmp_path: Path):
    """A stray print on stdout would corrupt the JSON-RPC stream: every line there must be a message."""
    params = stdio_server(tmp_path, "--offline")
    said = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "trending", "arguments": {}}}]
    with subprocess.Popen([params.command, *params.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, cwd=params.cwd,
                          env={**os.environ, **(params.env or {})}) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write("\n".join(json.dumps(m) for m in said) + "\n")
        proc.stdin.flush()
        messages = [json.loads(proc.stdout.readline()) for _ in range(3)]  # each stdout line is one message
        proc.stdin.close()  # end of input: the server stops, as when the agent quits
        rest, errors = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=30) == 0
    assert [m.get("id") for m in messages] == [1, 2, 3], messages
    assert {t["name"] for t in messages[1]["result"]["tools"]} == TOOLS
    assert messages[2]["result"]["structuredContent"]["items"]  # the first call waited for the first fetch
    assert rest == ""  # nothing else was written to stdout
    assert "synthetic demo snapshot" in errors  # the fetch log went to stderr
