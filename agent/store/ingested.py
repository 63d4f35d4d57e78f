"""Who ingested which topic: the rows the ingest rules (agent/api/ingest_rules.py) check, read here so
that every SQL string sits behind agent/store/."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .base import Store

__all__ = ["ingested_count", "owners"]

_CHUNK = 500  # ids per `IN (...)`: well under every database's parameter limit


def owners(store: Store, ids: Sequence[str]) -> dict[str, tuple[bool, str | None]]:
    """The ids the store holds → (ingested, the ingesting key's id when it was recorded)."""
    found: dict[str, tuple[bool, str | None]] = {}
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start:start + _CHUNK]
        rows = store.query(f"SELECT id, ingested, extra FROM topics WHERE id IN ({','.join('?' * len(chunk))})",
                           chunk)
        for row in rows:
            found[row["id"]] = (bool(row["ingested"]), _poster(row["extra"]))
    return found


def _poster(extra: str | None) -> str | None:
    try:
        value = json.loads(extra or "{}").get("ingested_by")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def ingested_count(store: Store, key_id: str) -> int:
    """How many ingested topics the key holds."""
    # `extra` is the JSON the store writes with json.dumps' default separators; a key id is hex,
    # so it needs no escaping in the pattern
    rows = store.query("SELECT COUNT(*) AS n FROM topics WHERE ingested = 1 AND extra LIKE ?",
                       (f'%"ingested_by": "{key_id}"%',))
    return int(rows[0]["n"])
