"""A session's rows in the store: the session, its decisions, and the install's utterance secret.

The live loop's `SessionManager` (agent/live/sessions.py) keeps sessions in memory and asks these
for what outlives a process; every SQL string of it is here, behind agent/store/.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from ..models import utcnow
from .base import Store

__all__ = ["decision_rows", "drop_secret", "erase_session_rows", "install_secret", "insert_session",
           "record_decision", "session_row"]


def insert_session(store: Store, session_id: str, *, token_hash: str, profile: str, frequency: str,
                   owner: str | None, if_absent: bool = False) -> None:
    """A new session row; `if_absent`: keep the row a platform's session already has."""
    with store.transaction() as db:
        db.execute("INSERT INTO sessions (id, token_hash, profile, frequency, created_at, owner) "
                   "VALUES (?, ?, ?, ?, ?, ?)" + (" ON CONFLICT (id) DO NOTHING" if if_absent else ""),
                   (session_id, token_hash, profile, frequency, utcnow().isoformat(), owner))


def session_row(store: Store, session_id: str) -> Any | None:
    rows = store.query("SELECT * FROM sessions WHERE id = ?", (session_id,))
    return rows[0] if rows else None


def drop_secret(store: Store, name: str) -> None:
    with store.transaction() as db:
        db.execute("DELETE FROM install_secrets WHERE name = ?", (name,))


def install_secret(store: Store, name: str) -> bytes:
    """The secret kept under `name`, made by whichever instance asks first and shared from then on."""
    with store.transaction() as db:
        db.execute("INSERT INTO install_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                   (name, secrets.token_hex(32)))
    rows = store.query("SELECT value FROM install_secrets WHERE name = ?", (name,))
    return bytes.fromhex(rows[0][0])


def record_decision(store: Store, session_id: str, values: Sequence[Any]) -> bool:
    """One decision row (at, utterance, its HMAC, its length, show, reason, topic, score, detail,
    caption, speaker); False, and nothing written, when the session was erased meanwhile (here or elsewhere)."""
    with store.transaction() as db:
        if not db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchall():
            return False
        db.execute(
            "INSERT INTO decisions (session_id, at, utterance, utterance_hmac, utterance_chars, show, reason, "
            "topic_id, score, detail, caption, speaker) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, *values))
    return True


def erase_session_rows(store: Store, session_id: str) -> bool:
    """Delete the session with its decisions and workflow runs; False when there was no such session."""
    with store.transaction() as db:
        found = db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount > 0
        db.execute("DELETE FROM decisions WHERE session_id = ?", (session_id,))
        db.execute("DELETE FROM workflow_runs WHERE session_id = ?", (session_id,))
    return found


def decision_rows(store: Store, session_id: str, *, shown_only: bool, limit: int) -> list[Any]:
    """The session's latest decisions, newest first."""
    sql = "SELECT * FROM decisions WHERE session_id = ?" + (" AND show = 1" if shown_only else "")
    return store.query(sql + " ORDER BY id DESC LIMIT ?", (session_id, limit))
