"""`tests/` mirrors `agent/` for every module one utterance goes through, so a change to one of them
has one test file to read and extend (docs/architecture.md, "Tests and scripts")."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The live path: the modules one utterance goes through, from the socket or route to the display.
LIVE_PATH = (
    "api/stream_socket.py", "api/routes/sessions.py", "runtime.py",
    "live/loop.py", "live/gating.py", "live/sessions.py", "live/release.py", "live/shared_sessions.py",
    "engine/runner.py", "engine/steps.py", "engine/values.py", "engine/step_deps.py", "engine/deps.py",
    "engine/triggers.py", "engine/spec.py",
    "index/topic_index.py", "index/story_rank.py",
    "ranking/ranker.py", "ranking/encoder.py", "ranking/scoring.py", "ranking/selection.py",
    "ranking/query.py", "ranking/window.py", "ranking/batching.py", "ranking/lexical.py",
    "ranking/bridges.py", "ranking/everyday.py",
    "captions/composer.py", "captions/templates.py", "captions/fit.py", "captions/caption.py",
    "display/router.py", "display/hud.py",
)


def mirror(module: str) -> Path:
    """Where the tests of `agent/<module>` live: tests/<package>/test_<module>.py."""
    path = Path(module)
    return ROOT / "tests" / path.parent / f"test_{path.name}"


@pytest.mark.parametrize("module", LIVE_PATH)
def test_every_live_path_module_has_its_own_test_file(module):
    assert (ROOT / "agent" / module).is_file(), f"agent/{module} is gone: update LIVE_PATH"
    assert mirror(module).is_file(), f"agent/{module} has no {mirror(module).relative_to(ROOT)}"


def test_every_test_folder_on_the_live_path_is_a_package():
    """pytest imports tests by package, so two test_sessions.py in different folders do not collide."""
    for module in LIVE_PATH:
        folder = mirror(module).parent
        while folder != ROOT / "tests":
            assert (folder / "__init__.py").is_file(), f"{folder.relative_to(ROOT)} lacks __init__.py"
            folder = folder.parent
