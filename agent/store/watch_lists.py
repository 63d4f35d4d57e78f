"""Each key's own watch list and push channels, in the store, so every instance sharing a database
holds the same lists: a `PUT /v1/watch` on one instance alerts from all of them.

The channel URLs carry the channels' secrets; they are never logged or shown (the API names a
channel by scheme and place). The `urls` column holds `{"role": …, "urls": […]}`: the role of the
key that set them decides what its channels may be wherever the list is read (a list saved before
roles were kept, a bare JSON list, reads as a client's). A revoked key's list is no one's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from ..models import utcnow
from .base import Store

__all__ = ["Role", "SavedList", "lists_since", "revoked_owners", "save_list"]

Role = Literal["client", "admin"]
_REVOKED = "revoked:"  # agent/store/keys.py: a revoked key's row is its hash behind this
_OWNER_CHARS = 12  # an owner is its key's id: the hash's first 12 characters (api/ingest_rules.key_id)


@dataclass(frozen=True)
class SavedList:
    owner: str
    text: str
    urls: list[str]
    updated_at: str
    role: Role = "client"


def save_list(store: Store, owner: str, text: str, urls: list[str], role: Role = "client") -> None:
    channels = json.dumps({"role": role, "urls": urls}, ensure_ascii=False)
    with store.transaction() as db:
        db.execute("INSERT INTO watch_lists (owner, text, urls, updated_at) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT (owner) DO UPDATE SET text = excluded.text, urls = excluded.urls, "
                   "updated_at = excluded.updated_at",
                   (owner, text, channels, utcnow().isoformat(timespec="microseconds")))


def _channels(raw: str) -> tuple[list[str], Role]:
    saved = json.loads(raw)
    if isinstance(saved, list):
        return [str(u) for u in saved], "client"
    return [str(u) for u in saved.get("urls", [])], "admin" if saved.get("role") == "admin" else "client"


def lists_since(store: Store, stamp: str = "") -> list[SavedList]:
    """The lists saved after `stamp` (every list for ""), oldest first; none of a revoked key."""
    revoked = revoked_owners(store)
    rows = store.query("SELECT owner, text, urls, updated_at FROM watch_lists WHERE updated_at > ? "
                       "ORDER BY updated_at, owner", (stamp,))
    saved = []
    for r in rows:
        if r["owner"] in revoked:
            continue
        urls, role = _channels(r["urls"])
        saved.append(SavedList(r["owner"], r["text"], urls, r["updated_at"], role))
    return saved


def revoked_owners(store: Store) -> set[str]:
    """The owners (key ids) whose stored key has been revoked."""
    rows = store.query("SELECT key_hash FROM api_keys WHERE key_hash LIKE ?", (_REVOKED + "%",))
    return {r["key_hash"][len(_REVOKED):][:_OWNER_CHARS] for r in rows}
