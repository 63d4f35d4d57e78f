"""Real PostgreSQL and Redis servers for tests: free loopback ports, temporary data dirs, persistence off.

The binaries come from Debian's `postgresql` and `redis-server` packages (`.ci/run` installs them).
Where they are absent the tests that need them skip with the reason, except in CI (`CI` set), where
a missing server is a failure: a green CI run must mean the multi-instance tests ran.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "RedisServer", "free_port", "start_postgres", "start_redis", "unavailable"]


def unavailable(reason: str) -> None:
    """Skip, or fail in CI, where a server cannot be had."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run the real-server tests; .ci/run installs them)", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
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
