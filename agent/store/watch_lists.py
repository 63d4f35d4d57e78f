"""Each key's own watch list and push channels, in the store, so every instance sharing a database
holds the same lists: a `PUT /v1/watch` on one instance alerts from all of them.

The channel URLs carry the channels' secrets; they are kept as the store keeps everything else and
never logged or shown (the API names a channel by scheme and place).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..models import utcnow
from .base import Store

__all__ = ["SavedList", "lists_since", "save_list"]


@dataclass(frozen=True)
class SavedList:
    owner: str
    text: str
    urls: list[str]
    updated_at: str


def save_list(store: Store, owner: str, text: str, urls: list[str]) -> None:
    with store.transaction() as db:
        db.execute("INSERT INTO watch_lists (owner, text, urls, updated_at) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT (owner) DO UPDATE SET text = excluded.text, urls = excluded.urls, "
                   "updated_at = excluded.updated_at",
                   (owner, text, json.dumps(urls, ensure_ascii=False), utcnow().isoformat(timespec="microseconds")))


def lists_since(store: Store, stamp: str = "") -> list[SavedList]:
    """The lists saved after `stamp` (every list for ""), oldest first."""
    rows = store.query("SELECT owner, text, urls, updated_at FROM watch_lists WHERE updated_at > ? "
                       "ORDER BY updated_at, owner", (stamp,))
    return [SavedList(r["owner"], r["text"], list(json.loads(r["urls"])), r["updated_at"]) for r in rows]
