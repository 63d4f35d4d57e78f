from __future__ import annotations

import json
import os

import pytest

from agent.sources import REGISTRY, source_class
from tests.conftest import FIXTURES, SNAPSHOT
from tests.sources.golden import golden_cases, parse_projection

CASES = golden_cases(FIXTURES, SNAPSHOT)


@pytest.mark.parametrize(("source", "body", "expected_file"), CASES, ids=[f"{s}/{b.name}" for s, b, _ in CASES])
def test_golden_pair(source: str, body, expected_file) -> None:
    parser = source_class(source)()
    got = parse_projection(parser, body)
    if os.environ.get("REGEN_GOLDEN") == "1":
        if isinstance(got, dict):
            got = {"error": got["error"], "contains": got["message"].split(": ", 1)[-1][:60]}
        expected_file.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        # a regenerating run must never pass: the new expectations are only right once reviewed
        pytest.fail(f"regenerated {expected_file.name}; review the diff, then run again without REGEN_GOLDEN")
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    if isinstance(expected, dict):
        assert isinstance(got, dict), f"expected a {expected['error']} error, parsed {len(got)} topics"
        assert got["error"] == expected["error"]
        assert expected["contains"] in got["message"]
    else:
        assert got == expected


def test_every_registered_source_has_golden_pairs() -> None:
    covered = {s for s, _, _ in CASES}
    missing = set(REGISTRY) - covered
    assert not missing, f"sources without fixtures: {sorted(missing)}"
