"""Every SQL string of the product sits behind agent/store/, so the two databases are served by one
set of queries and a schema change touches one folder."""

from __future__ import annotations

import re

from harness.paths import ROOT

SQL = re.compile(r"[\"'](SELECT .+ FROM|INSERT (OR \w+ )?INTO|DELETE FROM|UPDATE \w+ SET|(CREATE|ALTER|DROP) \w+)\b")
# not the product's database: the embedding cache is its own SQLite file beside the model, and the
# job locks are PostgreSQL advisory locks taken on their own connection, not rows
OWN_FILES = {"agent/ranking/cache.py", "agent/collect/joblocks.py"}


def test_no_sql_outside_the_store() -> None:
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "agent").rglob("*.py"))
             if "store" not in path.relative_to(ROOT / "agent").parts[:1]
             and str(path.relative_to(ROOT)) not in OWN_FILES
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if SQL.search(line)]
    assert found == []
