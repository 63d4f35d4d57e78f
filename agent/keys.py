"""API keys in the store: made once, kept only as a hash, listed and revoked by their hash's prefix.

The API checks them through `KeyRing` (agent/api/security.py); `trendlens keys` manages them.
Instances sharing a database share these rows, so a key made or revoked anywhere holds everywhere.
A revoked key's row stays as a tombstone (its hash prefixed with `revoked:`, which no key's hash
matches): the store then remembers it once held keys, and `serve` mints a first key only on a truly
first start, never behind an operator who revoked every key.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from .errors import InputError
from .models import utcnow
from .store import Store

__all__ = ["REVOKED", "StoredKey", "hash_key", "key_is_stored", "list_keys", "make_key", "revoke_key"]

REVOKED = "revoked:"
PREFIX_MIN = 8  # characters of the hash that name a key for `revoke`: short to type, long enough to be unique


def hash_key(key: str) -> str:
    # Keys are 32 random bytes: a fast hash is enough, there is nothing to brute-force.
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class StoredKey:
    key_hash: str
    label: str
    created_at: str

    @property
    def id(self) -> str:
        return self.key_hash[:12]


def make_key(store: Store, label: str = "default") -> str:
    """A new key, stored as its hash; the key itself is returned once, to be shown once."""
    key = "tl_" + secrets.token_urlsafe(32)
    with store.transaction() as db:
        db.execute("INSERT INTO api_keys (key_hash, label, created_at) VALUES (?, ?, ?)",
                   (hash_key(key), label, utcnow().isoformat()))
    return key


def list_keys(store: Store) -> list[StoredKey]:
    rows = store.query("SELECT key_hash, label, created_at FROM api_keys WHERE key_hash NOT LIKE ? "
                       "ORDER BY created_at, key_hash", (REVOKED + "%",))
    return [StoredKey(r["key_hash"], r["label"], r["created_at"]) for r in rows]


def key_is_stored(store: Store, digest: str) -> bool:
    return bool(store.query("SELECT 1 FROM api_keys WHERE key_hash = ?", (digest,)))


def revoke_key(store: Store, prefix: str) -> StoredKey:
    """Revoke the one stored key whose hash starts with `prefix` (as `trendlens keys list` shows it)."""
    prefix = prefix.strip().lower()
    if len(prefix) < PREFIX_MIN or any(c not in "0123456789abcdef" for c in prefix):
        raise InputError(f"name a key by at least {PREFIX_MIN} hex characters of its id (see `trendlens keys list`)")
    matches = [k for k in list_keys(store) if k.key_hash.startswith(prefix)]
    if len(matches) != 1:
        raise InputError(f"{'no' if not matches else len(matches)} stored keys match {prefix!r}")
    with store.transaction() as db:
        db.execute("UPDATE api_keys SET key_hash = ? WHERE key_hash = ?",
                   (REVOKED + matches[0].key_hash, matches[0].key_hash))
    return matches[0]
