"""/mcp on a real `trendlens serve` process, driven by the MCP SDK's streamable-HTTP client.

The endpoint is behind the API's own keys: no key or a wrong one is a 401 in the API's envelope,
before the MCP server sees the request.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from harness.realdata import current_lists, need_upstream, seed_real_days
from harness.servers import Instance, start_instance
from tests.mcp.checks import check_bad_arguments, check_real_day, check_synthetic
from tests.mcp.client import check_listing, over_http

KEY = "mcp-test-key"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "curl", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def serve(tmp_path_factory) -> Iterator[Instance]:
    instance = start_instance(tmp_path_factory.mktemp("mcp-serve"), api_keys=KEY)
    yield instance
    instance.stop()


async def test_tools_and_resources_over_streamable_http(serve):
    async with over_http(serve.url, KEY) as session:
        await check_listing(session)
        await check_synthetic(session)


async def test_bad_arguments_over_http_are_tool_errors(serve):
    async with over_http(serve.url, KEY) as session:
        await check_bad_arguments(session)


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong-key"}, {"Authorization": KEY}])
def test_without_the_api_key_mcp_is_a_401(serve, headers):
    r = httpx.post(serve.url + "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=30)
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert r.json()["error"]["type"] == "authentication_error"
    ok = httpx.post(serve.url + "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {KEY}"},
                    timeout=30)
    assert ok.status_code == 200 and ok.json()["result"]["serverInfo"]["name"] == "trendlens"


async def test_the_sdk_client_without_a_key_does_not_get_in(serve):
    with pytest.raises(BaseException) as raised:  # noqa: B017 - the SDK wraps the 401 in its task group's errors
        async with over_http(serve.url, None) as session:
            await session.list_tools()
    assert "error" in repr(raised.value).lower()


async def test_every_tool_over_http_on_a_real_recorded_day(tmp_path: Path):
    """A serve whose store holds the two recorded days and that fetches nothing (no source but feeds, and no
    feed is configured), so the recorded lists are what it answers from."""
    need_upstream()
    data = tmp_path / "real"
    settings = seed_real_days(data)
    # under --database=postgresql the days went into the test's database: the instance reads that one
    instance = start_instance(data, api_keys=KEY, env={"TRENDLENS_SOURCES": "feed"},
                              database_url=os.environ.get("TRENDLENS_DATABASE_URL"))
    try:
        async with over_http(instance.url, KEY) as session:
            await check_real_day(session, current_lists(settings))
    finally:
        instance.stop()
