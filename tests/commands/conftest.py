from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def write_topics(tmp_path: Path):
    def _write(records: list[dict], name: str = "topics.json") -> Path:
        p = tmp_path / name
        p.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
        return p

    return _write
