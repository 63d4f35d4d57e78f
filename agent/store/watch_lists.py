"""Each key's own watch list and push channels, in the store, so every instance sharing a database
holds the same lists: a `PUT /v1/watch` on one instance alerts from all of them.

The channel URLs carry the channels' secrets; they are never logged or shown (the API names a
channel by scheme and place). The `urls` column holds `{"role": …, "urls": […]}`: the role of the
key that set them decides what its channels may be wherever the list is read (a list saved before
roles were kept, a bare JSON list, reads as a client's). A revoked key's list is no one's.

With a key the operator holds (`ChannelSeal`: derived from the utterances' keyed-hash key, which
is kept apart from the store) the URLs are sealed (`{"role": …, "sealed": "<Fernet token>"}`), so a
copy of the store holds no bot token or password. A sealed list read without that key keeps its
words and loses its channels (`SavedList.sealed`).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Literal

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..models import utcnow
from .base import Store

__all__ = ["ChannelSeal", "Role", "SavedList", "lists_since", "revoked_owners", "save_list"]

Role = Literal["client", "admin"]
_REVOKED = "revoked:"  # agent/store/keys.py: a revoked key's row is its hash behind this
_OWNER_CHARS = 12  # an owner is its key's id: the hash's first 12 characters (api/ingest_rules.key_id)


class ChannelSeal:
    """Seals a list's channel URLs with a key derived (HKDF-SHA256) from the operator's secret."""

    def __init__(self, secret: bytes) -> None:
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                       info=b"trendlens watch channels").derive(secret)
        self._fernet = Fernet(base64.urlsafe_b64encode(derived))

    def seal(self, urls: list[str]) -> str:
        return self._fernet.encrypt(json.dumps(urls, ensure_ascii=False).encode()).decode()

    def open(self, token: str) -> list[str] | None:
        """The URLs, or None when they were sealed with another key."""
        try:
            return [str(u) for u in json.loads(self._fernet.decrypt(token.encode()))]
        except InvalidToken:
            return None


@dataclass(frozen=True)
class SavedList:
    owner: str
    text: str
    urls: list[str]
    updated_at: str
    role: Role = "client"
    sealed: bool = False  # its channels are sealed with a key this reader lacks: read without them


def save_list(store: Store, owner: str, text: str, urls: list[str], role: Role = "client",
              seal: ChannelSeal | None = None) -> None:
    kept: dict[str, object] = {"role": role, "urls": urls} if seal is None or not urls else {
        "role": role, "sealed": seal.seal(urls)}
    channels = json.dumps(kept, ensure_ascii=False)
    with store.transaction() as db:
        db.execute("INSERT INTO watch_lists (owner, text, urls, updated_at) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT (owner) DO UPDATE SET text = excluded.text, urls = excluded.urls, "
                   "updated_at = excluded.updated_at",
                   (owner, text, channels, utcnow().isoformat(timespec="microseconds")))


def _channels(raw: str, seal: ChannelSeal | None) -> tuple[list[str] | None, Role]:
    saved = json.loads(raw)
    if isinstance(saved, list):
        return [str(u) for u in saved], "client"
    role: Role = "admin" if saved.get("role") == "admin" else "client"
    if "sealed" in saved:
        return (seal.open(saved["sealed"]) if seal is not None else None), role
    return [str(u) for u in saved.get("urls", [])], role


def lists_since(store: Store, stamp: str = "", seal: ChannelSeal | None = None) -> list[SavedList]:
    """The lists saved after `stamp` (every list for ""), oldest first; none of a revoked key."""
    revoked = revoked_owners(store)
    rows = store.query("SELECT owner, text, urls, updated_at FROM watch_lists WHERE updated_at > ? "
                       "ORDER BY updated_at, owner", (stamp,))
    saved = []
    for r in rows:
        if r["owner"] in revoked:
            continue
        urls, role = _channels(r["urls"], seal)
        saved.append(SavedList(r["owner"], r["text"], urls or [], r["updated_at"], role, sealed=urls is None))
    return saved


def revoked_owners(store: Store) -> set[str]:
    """The owners (key ids) whose stored key has been revoked."""
    rows = store.query("SELECT key_hash FROM api_keys WHERE key_hash LIKE ?", (_REVOKED + "%",))
    return {r["key_hash"][len(_REVOKED):][:_OWNER_CHARS] for r in rows}
