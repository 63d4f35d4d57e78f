from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SNAPSHOT = ROOT / "agent" / "synthetic" / "snapshot"  # the synthetic demo snapshot the package ships
SHARED_UPSTREAM = ROOT.parent / "shared" / "upstream"


def case_path(source: str, name: str) -> Path:
    """A parser case: a golden-pair input in fixtures/sources, or a file of the shipped snapshot."""
    for folder in (FIXTURES / "sources" / source, SNAPSHOT / source):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no case {name!r} for {source!r} in fixtures/sources or the synthetic snapshot")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Tests never see the developer's TRENDLENS_* settings or config file."""
    for key in list(os.environ):
        if key.startswith("TRENDLENS_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("TRENDLENS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    from agent.settings import get_settings

    get_settings.cache_clear()


@pytest.fixture
def settings(tmp_path: Path):
    from agent.settings import Settings

    return Settings(data_dir=tmp_path / "data", fetch_backoff_s=0, fetch_deadline_s=5)
