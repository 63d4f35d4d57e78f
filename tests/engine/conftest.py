from __future__ import annotations

import pytest

from agent.runtime import Runtime
from agent.settings import Settings


@pytest.fixture
def runtime(tmp_path) -> Runtime:
    """A built, unstarted runtime reading workflows from an empty folder of its own (`tmp_path / "wf"`)."""
    return Runtime.build(Settings(data_dir=tmp_path / "data", offline=True, workflows_dir=tmp_path / "wf"))
