from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SNAPSHOT = ROOT / "agent" / "synthetic" / "snapshot"  # the synthetic demo snapshot the package ships
SHARED_UPSTREAM = ROOT.parent / "shared" / "upstream"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--database", choices=("sqlite", "postgresql"), default="sqlite",
                     help="the store every test gets through the settings: the SQLite default, or a fresh "
                          "database on a real PostgreSQL per test (the whole suite against PostgreSQL)")


def pytest_configure(config: pytest.Config) -> None:
    from agent.ranking import allow_test_embedders

    allow_test_embedders()  # `hash` by name, here only (a service refuses it)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked `needs_shared(...)` skips without those files, or fails under CI, before any of its
    fixtures read them (harness/required.py)."""
    from harness.required import need_shared

    for mark in item.iter_markers("needs_shared"):
        need_shared(*mark.args)


def case_path(source: str, name: str) -> Path:
    """A parser case: a golden-pair input in fixtures/sources, or a file of the shipped snapshot."""
    for folder in (FIXTURES / "sources" / source, SNAPSHOT / source):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no case {name!r} for {source!r} in fixtures/sources or the synthetic snapshot")


def load_script(group: str, name: str) -> ModuleType:
    """`scripts/<group>/<name>.py` as a module, for a test of its functions (scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / group / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the script runs
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Tests never see the developer's TRENDLENS_* settings or config file."""
    for key in list(os.environ):
        if key.startswith("TRENDLENS_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("TRENDLENS_DATA_DIR", str(tmp_path / "data"))
    if request.config.getoption("--database") == "postgresql":
        if request.node.get_closest_marker("sqlite_only"):
            pytest.skip("reads the SQLite file itself (--database=postgresql)")
        monkeypatch.setenv("TRENDLENS_DATABASE_URL", request.getfixturevalue("postgres_url"))
    monkeypatch.chdir(tmp_path)
    from agent.settings import get_settings

    get_settings.cache_clear()


@pytest.fixture
def settings(tmp_path: Path):
    from agent.settings import Settings

    return Settings(data_dir=tmp_path / "data", fetch_backoff_s=0, fetch_deadline_s=5)


@pytest.fixture
def chromium() -> str:
    """Debian's chromium for a page test (`tests.browser.needs_chromium`)."""
    from .browser import require_chromium

    return require_chromium()


# -- real servers (harness/servers.py): started once per run, only when a test asks ---------------
@pytest.fixture(scope="session")
def postgres_server():
    from harness.servers import start_postgres

    server = start_postgres()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server():
    from harness.servers import start_redis

    server = start_redis()
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """A fresh, empty PostgreSQL database for this test."""
    return postgres_server.create_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """Each store test runs twice: on the embedded SQLite default and on a real PostgreSQL."""
    if request.param == "sqlite":
        return None
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(database_url: str | None, tmp_path: Path):
    from agent.settings import Settings
    from agent.store import open_store

    opened = open_store(Settings(data_dir=tmp_path / "data", database_url=database_url))
    yield opened
    opened.close()


@pytest.fixture
async def runtime(tmp_path: Path):
    """A started runtime on the synthetic demo snapshot with the hash test embedder (no model load)."""
    from agent.ranking import HashEmbedder
    from agent.runtime import Runtime
    from agent.settings import Settings

    rt = Runtime.build(Settings(data_dir=tmp_path, offline=True), embedder=HashEmbedder())
    await rt.collector.cycle()
    await rt.start()
    yield rt
    await rt.aclose()
