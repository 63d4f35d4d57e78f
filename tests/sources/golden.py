"""Golden pairs: fixtures/sources/<source>/<case>.<ext> + <case>.expected.json.

The expected side is either a JSON array of topics projected to GOLDEN_FIELDS, or
`{"error": "<kind>", "contains": "<text in the message>"}` for bodies that must fail.
Regenerate after a deliberate parser change with
`REGEN_GOLDEN=1 pytest tests/sources/test_golden.py`, then review the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.errors import SourceError
from agent.sources import Source

GOLDEN_FIELDS = ("id", "title", "rank", "heat", "heat_text", "url", "lang", "summary")


def golden_cases(fixtures: Path) -> list[tuple[str, Path]]:
    cases = []
    for source_dir in sorted((fixtures / "sources").iterdir()):
        for body in sorted(source_dir.iterdir()):
            if body.name.endswith(".expected.json") or body.name.startswith("."):
                continue
            cases.append((source_dir.name, body))
    return cases


def expected_path(body: Path) -> Path:
    return body.with_name(body.name.rsplit(".", 1)[0] + ".expected.json")


def parse_projection(source: Source, body: Path) -> Any:
    try:
        topics = source.parse_body(body.read_bytes(), url=None)
    except SourceError as exc:
        return {"error": exc.kind, "message": str(exc)}
    return [{k: t.public()[k] for k in GOLDEN_FIELDS} for t in topics]
