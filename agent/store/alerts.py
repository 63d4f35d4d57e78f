"""The watch alerts sent: which (owner, group, story) alerted, on how many platforms, and the alert.

In the store, not in memory, so a story never alerts twice across a restart, nor once from each
instance sharing a database, and each key's `GET /v1/alerts` outlives the process.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Store

__all__ = ["alerted_platforms", "recent_alerts", "save_alert"]


def alerted_platforms(store: Store, owner: str, group: str, story_id: str) -> int | None:
    """How many platforms the story was on when the group last alerted it; None: never."""
    rows = store.query("SELECT platforms FROM watch_alerts WHERE owner = ? AND grp = ? AND story_id = ?",
                       (owner, group, story_id))
    return int(rows[0]["platforms"]) if rows else None


def save_alert(store: Store, owner: str, group: str, story_id: str, *, platforms: int, at: str,
               alert: dict[str, Any]) -> None:
    with store.transaction() as db:
        db.execute("INSERT INTO watch_alerts (owner, grp, story_id, platforms, at, alert) VALUES (?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT (owner, grp, story_id) DO UPDATE SET platforms = excluded.platforms, "
                   "at = excluded.at, alert = excluded.alert",
                   (owner, group, story_id, platforms, at, json.dumps(alert, ensure_ascii=False)))


def recent_alerts(store: Store, owner: str, limit: int = 200) -> list[dict[str, Any]]:
    """The owner's alerts, newest first (a story alerted again shows its latest)."""
    rows = store.query("SELECT alert FROM watch_alerts WHERE owner = ? ORDER BY at DESC, story_id LIMIT ?",
                       (owner, limit))
    return [json.loads(r["alert"]) for r in rows]
