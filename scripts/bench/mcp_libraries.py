"""The official MCP SDK (`mcp`) against `fastmcp`, as this project would use them: what each costs to
install, what it adds to the project's environment, how long it takes to import, and how long a
desktop agent waits from starting a one-tool stdio server to its tool list.

Each library goes into its own scratch venv (installed from the package index, timed once: a
rerun reuses the venvs and the install time); the project venv's own MCP client (`ClientSession`
over `stdio_client`) then starts a one-tool server from each venv, five times, and times spawn →
initialize → tools/list. Import time is the median of five fresh interpreters. Install first, then
measure on a quiet machine:

    .venv/bin/python scripts/bench/mcp_libraries.py --runs 1        # installs (network-bound)
    .venv/bin/python scripts/bench/mcp_libraries.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
SERVERS = {
    "mcp": ('from mcp.server.mcpserver import MCPServer\n'
            'server = MCPServer("bench")\n'
            '@server.tool()\n'
            'def ping(n: int) -> int:\n'
            '    """Echo."""\n'
            '    return n\n'
            'server.run()\n', "from mcp.server.mcpserver import MCPServer"),
    "fastmcp": ('from fastmcp import FastMCP\n'
                'server = FastMCP("bench")\n'
                '@server.tool\n'
                'def ping(n: int) -> int:\n'
                '    """Echo."""\n'
                '    return n\n'
                'server.run(show_banner=False)\n', "from fastmcp import FastMCP"),
}


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=True)


def install(name: str, spec: str, where: Path) -> dict[str, float | int | str]:
    """A scratch venv with `spec`; the install is timed once and remembered (a rerun measures the rest only)."""
    venv = where / name
    timed = where / f"{name}.install.json"
    if not timed.exists():
        _run(sys.executable, "-m", "venv", str(venv))
        _run(str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--upgrade", "pip")
        started = time.perf_counter()
        _run(str(venv / "bin" / "python"), "-m", "pip", "install", "-q", spec)
        timed.write_text(json.dumps({"install_s": round(time.perf_counter() - started, 1)}))
    seconds = json.loads(timed.read_text())["install_s"]
    site = next((venv / "lib").glob("python3*/site-packages"))
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
    dists = {d.name.split("-")[0].lower().replace("_", "-") for d in site.glob("*.dist-info")}
    ours = {d.name.split("-")[0].lower().replace("_", "-")
            for d in next((Path(sys.prefix) / "lib").glob("python3*/site-packages")).glob("*.dist-info")}
    return {"install_s": seconds, "site_mib": round(size / 2**20, 1), "dists": len(dists),
            "not_in_project": len(dists - ours), "python": str(venv / "bin" / "python")}


def _version(venv: Path, name: str) -> str:
    out = _run(str(venv / "bin" / "python"), "-m", "pip", "show", name).stdout
    return re.search(r"^Version: (.+)$", out, re.M).group(1)  # type: ignore[union-attr]


def import_s(python: str, statement: str, runs: int) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    return statistics.median(float(_run(python, "-c", code).stdout) for _ in range(runs))


async def _startup(python: str, script: Path) -> float:
    started = time.perf_counter()
    async with stdio_client(StdioServerParameters(command=python, args=[str(script)])) as (r, w), \
            ClientSession(r, w) as session:
        await session.initialize()
        tools = await session.list_tools()
        assert [t.name for t in tools.tools] == ["ping"]
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcp", default="mcp==2.3.0")
    parser.add_argument("--fastmcp", default="fastmcp")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--where", type=Path, default=Path("/tmp/trendlens-mcp-bench"))
    args = parser.parse_args()
    args.where.mkdir(parents=True, exist_ok=True)
    rows = {}
    for name, spec in (("mcp", args.mcp), ("fastmcp", args.fastmcp)):
        row = install(name, spec, args.where)
        python = str(row.pop("python"))
        script = args.where / f"{name}_server.py"
        script.write_text(SERVERS[name][0], encoding="utf-8")
        row["version"] = _version(args.where / name, name)  # type: ignore[assignment]
        row["import_s"] = round(import_s(python, SERVERS[name][1], args.runs), 3)
        row["stdio_tools_list_s"] = round(statistics.median(asyncio.run(_startup(python, script))
                                                            for _ in range(args.runs)), 3)
        rows[name] = row
    print(json.dumps(rows, indent=1))
    print("\n| library | version | install (s) | site-packages (MiB) | distributions | of them not in the project "
          "venv (which holds mcp) | import (s) | spawn → tools/list over stdio (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['version']} | {r['install_s']} | {r['site_mib']} | {r['dists']} | {r['not_in_project']} "
              f"| {r['import_s']} | {r['stdio_tools_list_s']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
