"""scripts/tools/lingzhu_probe.py against a real `trendlens serve`: what a user runs before registering the agent."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.servers import Instance, free_port, start_instance

PROBE = Path(__file__).resolve().parents[2] / "scripts" / "tools" / "lingzhu_probe.py"
KEY = "probe-key-1"


@pytest.fixture(scope="module")
def serve(tmp_path_factory) -> Iterator[Instance]:
    instance = start_instance(tmp_path_factory.mktemp("probe"), api_keys=KEY)
    yield instance
    instance.stop()


def probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("question", ["现在最火的是什么？", "你好", "What can you do?"])
def test_the_probe_passes_against_serve_and_prints_every_frame(serve, question):
    done = probe("--url", serve.url, "--key", KEY, "--question", question)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert out.rstrip().endswith("PASS: ready to register on the Lingzhu platform")
    assert '"ok": true' in out.replace('"ok":true', '"ok": true')
    frames = [line for line in out.splitlines() if line.lstrip().startswith("+")]
    assert frames[0].endswith(":ok") and frames[-1].endswith("data: [DONE]")
    assert any('"type": "answer"' in f for f in frames) and any('"type": "follow_up"' in f for f in frames)
    assert KEY not in out


def test_the_probe_fails_clearly_with_a_wrong_key(serve):
    done = probe("--url", serve.url, "--key", "wrong")
    assert done.returncode == 1 and "FAIL the SSE request is accepted (HTTP 401)" in done.stdout
    assert done.stdout.rstrip().endswith("problem(s)")


def test_the_probe_fails_clearly_when_nothing_listens():
    done = probe("--url", f"http://127.0.0.1:{free_port()}", "--timeout", "5")
    assert done.returncode == 1 and "FAIL: cannot reach" in done.stdout
