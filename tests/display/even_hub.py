"""The Even Hub simulator (`@evenrealities/evenhub-simulator`, its linux-x64 binary) run headless
under Xvfb, with our plugin (`deploy/even-hub/`) loaded from a local static server, and driven
through the simulator's automation API (`--automation-port`: `/api/ping`, `/api/console`,
`/api/screenshot/glasses`).

`make test` installs the plugin's npm packages (`make even-hub`); `.ci/run` installs Xvfb and
WebKitGTK, which the simulator's window needs.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from harness import free_port
from tests.conftest import ROOT

from .glasses import missing

__all__ = ["PLUGIN", "SIMULATOR", "EvenHubSimulator", "need_even_hub", "open_page", "simulator"]

PLUGIN = ROOT / "deploy" / "even-hub"
SIMULATOR = PLUGIN / "node_modules" / "@evenrealities" / "sim-linux-x64" / "bin" / "evenhub-simulator"
SDK = PLUGIN / "node_modules" / "@evenrealities" / "even_hub_sdk" / "dist" / "index.js"


def need_even_hub() -> None:
    """The simulator binary, the SDK and Xvfb; skipped where missing, failed under CI."""
    if not (SIMULATOR.exists() and SDK.exists()):
        missing("the Even Hub plugin's npm packages (make even-hub)")
    if shutil.which("xvfb-run") is None:
        missing("Xvfb (apt-get install xvfb xauth)")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        return None


@contextlib.contextmanager
def _static(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class EvenHubSimulator:
    """One running simulator: its automation API, and what our plugin logged in it."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.client = httpx.Client(base_url=base, timeout=10.0)

    def console(self) -> list[dict[str, Any]]:
        return self.client.get("/api/console").json().get("entries", [])

    def logged(self, prefix: str) -> list[str]:
        return [e["message"] for e in self.console() if str(e.get("message", "")).startswith(prefix)]

    def wait_log(self, prefix: str, timeout: float = 20.0, count: int = 1) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.logged(prefix)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(f"no {prefix!r} in the simulator's console: {self.console()[-10:]}")

    def wait_screen(self, condition: Any, timeout: float = 10.0) -> Any:
        """The first screenshot for which `condition(image)` holds (the simulator draws a moment
        after the SDK's call returns)."""
        deadline = time.monotonic() + timeout
        while True:
            image = self.screenshot()
            if condition(image):
                return image
            if time.monotonic() > deadline:
                raise AssertionError("the glasses' screen never showed what was expected")
            time.sleep(0.1)

    def click(self) -> None:
        """A click on the glasses' touchpad (`/api/input`)."""
        self.client.post("/api/input", json={"action": "click"}).raise_for_status()

    def screenshot(self) -> Any:
        """The glasses' framebuffer (576×288 RGBA) as a Pillow image."""
        from PIL import Image

        response = self.client.get("/api/screenshot/glasses")
        response.raise_for_status()
        return Image.open(io.BytesIO(response.content)).convert("RGBA")


def simulator(server: str, session_id: str, token: str) -> contextlib.AbstractContextManager[EvenHubSimulator]:
    """The simulator showing our plugin for one TrendLens session (`server` its base URL)."""
    return open_page("index.html", f"server={quote(server, safe='')}&session={quote(session_id)}"
                                   f"&token={quote(token)}")


@contextlib.contextmanager
def open_page(page: str, fragment: str) -> Iterator[EvenHubSimulator]:
    """The simulator showing `deploy/even-hub/<page>#<fragment>`."""
    port = free_port()
    home = tempfile.mkdtemp(prefix="tl-evenhub-")
    with _static(PLUGIN) as static:
        url = f"{static}/{page}#{fragment}"
        env = {**os.environ, "HOME": home, "XDG_CONFIG_HOME": home, "WEBKIT_DISABLE_COMPOSITING_MODE": "1"}
        log = Path(home) / "simulator.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(["xvfb-run", "-a", "-s", "-screen 0 1280x900x24", str(SIMULATOR), url,
                                     "--automation-port", str(port), "--no-glow"],
                                    env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        sim = EvenHubSimulator(f"http://127.0.0.1:{port}")
        try:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if sim.client.get("/api/ping").text.strip() == "pong":
                        break
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = log.read_text(errors="replace")[-2000:]
                    raise AssertionError(f"the Even Hub simulator did not start: {err}")
                time.sleep(0.2)
            yield sim
        finally:
            sim.client.close()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
            shutil.rmtree(home, ignore_errors=True)
