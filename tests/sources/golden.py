"""Golden pairs: fixtures/sources/<source>/<case>.expected.json + its input <case>.<ext>.

The input sits beside it, or, for the files of the synthetic demo snapshot that
the package ships, in agent/synthetic/snapshot/<source>/.

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


def golden_cases(fixtures: Path, snapshot: Path) -> list[tuple[str, Path, Path]]:
    """(source, input, expected) for every pair; an expected file without its input fails here."""
    cases = []
    for source_dir in sorted((fixtures / "sources").iterdir()):
        for expected in sorted(source_dir.glob("*.expected.json")):
            case = expected.name.removesuffix(".expected.json")
            bodies = [p for folder in (source_dir, snapshot / source_dir.name) if folder.is_dir()
                      for p in sorted(folder.glob(case + ".*")) if not p.name.endswith(".expected.json")]
            if len(bodies) != 1:
                raise FileNotFoundError(f"{expected}: expected one input {case}.*, found {bodies}")
            cases.append((source_dir.name, bodies[0], expected))
    return cases


def parse_projection(source: Source, body: Path) -> Any:
    try:
        topics = source.parse_body(body.read_bytes(), url=None)
    except SourceError as exc:
        return {"error": exc.kind, "message": str(exc)}
    return [{k: t.public()[k] for k in GOLDEN_FIELDS} for t in topics]
