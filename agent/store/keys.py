"""API keys in the store: made once, kept only as a hash, listed and revoked by their hash's prefix.

The API checks them through `KeyRing` (agent/api/security.py); `trendlens keys` manages them.
Instances sharing a database share these rows, so a key made or revoked anywhere holds everywhere.
A revoked key's row stays as a tombstone (its hash prefixed with `revoked:`, which no key's hash
matches): the store then remembers it once held keys, and `serve` mints a first key only on a truly
first start, never behind an operator who revoked every key.

Each key has a role (`ROLES`): a client key makes and drives its own sessions and reads topics,
chat and the digest; an admin key may also ingest topics and run workflows (docs/security.md).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Literal, get_args

from agent.errors import InputError
from agent.models import utcnow
from agent.store import Store

__all__ = ["REVOKED", "ROLES", "Role", "StoredKey", "any_key_stored", "hash_key", "key_is_stored", "key_role",
           "list_keys", "make_key", "revoke_key"]

Role = Literal["client", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)

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
    role: Role = "client"

    @property
    def id(self) -> str:
        return self.key_hash[:12]


def make_key(store: Store, label: str = "default", *, role: Role = "client") -> str:
    """A new key, stored as its hash; the key itself is returned once, to be shown once."""
    if role not in ROLES:
        raise InputError(f"unknown key role {role!r}; valid: {', '.join(ROLES)}")
    key = "tl_" + secrets.token_urlsafe(32)
    with store.transaction() as db:
        db.execute("INSERT INTO api_keys (key_hash, label, created_at, role) VALUES (?, ?, ?, ?)",
                   (hash_key(key), label, utcnow().isoformat(), role))
    return key


def _role(value: object) -> Role:
    # anything but the admin role reads as a client: a row can only lose power by being odd
    return "admin" if value == "admin" else "client"


def list_keys(store: Store) -> list[StoredKey]:
    rows = store.query("SELECT key_hash, label, created_at, role FROM api_keys WHERE key_hash NOT LIKE ? "
                       "ORDER BY created_at, key_hash", (REVOKED + "%",))
    return [StoredKey(r["key_hash"], r["label"], r["created_at"], _role(r["role"])) for r in rows]


def key_role(store: Store, digest: str) -> Role | None:
    """The stored key's role, None when no key (or only a revoked one) has this hash."""
    rows = store.query("SELECT role FROM api_keys WHERE key_hash = ?", (digest,))
    return _role(rows[0]["role"]) if rows else None


def any_key_stored(store: Store) -> bool:
    """Whether the store holds any key row, a revoked one's tombstone included."""
    return bool(store.query("SELECT 1 FROM api_keys LIMIT 1"))


def key_is_stored(store: Store, digest: str) -> bool:
    return key_role(store, digest) is not None


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
