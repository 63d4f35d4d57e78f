"""The built wheel works on its own: installed into a fresh folder and started from an empty one,
`python -m agent serve --offline` has its workflows and the synthetic demo snapshot, and captions."""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import harness.fitting
from harness import free_port
from tests.conftest import ROOT

KEY = "wheel-test-key"
_SKIP = shutil.ignore_patterns(".venv", ".git", "data", "build", "dist", "*.egg-info", "__pycache__",
                               ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a copy of the checkout and installed (without dependencies) into a fresh target."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_SKIP)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp / "dist"), str(src)], check=True, timeout=300)
    wheels = list((tmp / "dist").glob("trendlens-*.whl"))
    assert len(wheels) == 1
    target = tmp / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                    str(wheels[0])], check=True, timeout=300)
    return target


def _env(target: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRENDLENS_")}
    # the installed copy comes first; the dependencies come from this interpreter's site-packages
    env |= {"PYTHONPATH": str(target), "TRENDLENS_DATA_DIR": str(data), "TRENDLENS_API_KEYS": KEY,
            "TRENDLENS_ADMIN_KEYS": KEY}  # it lists the workflows: an admin route
    return env


@pytest.mark.slow
def test_wheel_ships_workflows_and_snapshot(installed: Path, tmp_path: Path) -> None:
    agent_dir = installed / "agent"
    assert sorted(p.name for p in (agent_dir / "workflows").glob("*.yaml")) == [
        "daily_digest.yaml", "live_captions.yaml", "refresh_sources.yaml"]
    assert (agent_dir / "synthetic" / "README.md").is_file()
    assert (agent_dir / "synthetic" / "snapshot" / "v2ex" / "hot.json").is_file()
    assert not (installed / "fixtures").exists() and not (installed / "workflows").exists()
    # the tests' and scripts' harness is no part of what a user installs
    assert not (installed / "harness").exists() and not (agent_dir / "testing").exists()
    # nor is what fits the shipped models and profiles (harness/fitting.py), and nothing shipped reads the harness
    code = {p.relative_to(installed).as_posix(): p.read_text(encoding="utf-8") for p in agent_dir.rglob("*.py")}
    fitting = [name for name, f in vars(harness.fitting).items()
               if inspect.isfunction(f) and f.__module__ == harness.fitting.__name__]
    assert "fit_link_model" in fitting and "save_fitted" in fitting
    assert not [(path, name) for path, text in code.items() for name in fitting if f"def {name}(" in text]
    assert not [path for path, text in code.items() if re.search(r"^\s*(from|import) harness\b", text, re.M)]


@pytest.mark.slow
def test_installed_wheel_serves_offline_from_an_empty_folder_and_captions(installed: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = _env(installed, tmp_path / "data")
    where = subprocess.run([sys.executable, "-c", "import agent; print(agent.__file__)"], cwd=empty, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where.startswith(str(installed)), where  # not the checkout
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "agent", "serve", "--offline", "--port", str(port)],
                                cwd=empty, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {KEY}"}
    try:
        deadline = time.monotonic() + 180
        ready: dict = {}
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                ready = httpx.get(url + "/readyz", timeout=2).json()
                if ready.get("topics") and ready.get("model"):
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        assert ready.get("topics", 0) > 100, log.read_text(errors="replace")[-3000:]
        assert ready["data"] == "synthetic demo snapshot"
        workflows = httpx.get(url + "/v1/workflows", headers=auth, timeout=10).json()
        assert {"live_captions", "refresh_sources", "daily_digest"} <= {w["name"] for w in workflows["items"]}
        s = httpx.post(url + "/v1/sessions", headers=auth, json={"profile": "even-g1"}, timeout=10).json()
        r = httpx.post(url + f"/v1/sessions/{s['id']}/utterances", headers=auth, timeout=30,
                       json={"text": "今年春晚的机器人扭秧歌你们看了吗", "final": True}).json()
        assert r["captions"], r["decision"]
        assert "机器人扭秧歌" in r["captions"][0]["text"]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    text = log.read_text(errors="replace")
    assert "synthetic demo snapshot" in text and "Traceback" not in text


@pytest.mark.slow
async def test_installed_wheel_answers_mcp_on_stdio_from_an_empty_folder(installed: Path, tmp_path: Path) -> None:
    """What a desktop agent's config starts: `trendlens mcp` from the installed package, in a folder of its own."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    empty = tmp_path / "empty"
    empty.mkdir()
    env = _env(installed, tmp_path / "data") | {"TRENDLENS_EMBEDDER": "lexical"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "agent", "mcp", "--offline"], cwd=str(empty),
                                   env=env)
    with (tmp_path / "mcp.log").open("w") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("trending", {"limit": 3})
    assert not result.is_error and len(result.structured_content["items"]) == 3
    assert "synthetic" in (tmp_path / "mcp.log").read_text()
    assert list(empty.iterdir()) == []  # nothing written where it was started
