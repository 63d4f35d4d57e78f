"""Versioned schema. Append a new entry to MIGRATIONS; never edit an applied one.

The version lives in SQLite's `user_version`; each migration runs in its own
transaction together with the version bump, so a crash mid-upgrade leaves the
previous version intact.
"""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: topics, fetch cycles, per-fetch observations, source health
    """
    CREATE TABLE topics (
        id          TEXT PRIMARY KEY,          -- <source>:<item_id>
        source      TEXT NOT NULL,
        item_id     TEXT NOT NULL,
        title       TEXT NOT NULL,
        summary     TEXT,
        url         TEXT,
        lang        TEXT NOT NULL,
        rank        INTEGER,
        heat        REAL,
        heat_text   TEXT,
        extra       TEXT NOT NULL DEFAULT '{}',
        first_seen  TEXT NOT NULL,
        last_seen   TEXT NOT NULL
    );
    CREATE INDEX topics_source_seen ON topics (source, last_seen);
    CREATE TABLE cycles (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        started_at  TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        sources     TEXT NOT NULL,
        ok          INTEGER NOT NULL,
        failed      INTEGER NOT NULL
    );
    CREATE TABLE observations (
        topic_id    TEXT NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
        cycle_id    INTEGER NOT NULL REFERENCES cycles (id) ON DELETE CASCADE,
        observed_at TEXT NOT NULL,
        rank        INTEGER,
        heat        REAL
    );
    CREATE INDEX observations_topic_time ON observations (topic_id, observed_at);
    CREATE INDEX observations_time ON observations (observed_at);
    CREATE TABLE source_health (
        source               TEXT PRIMARY KEY,
        last_attempt         TEXT,
        last_success         TEXT,
        last_count           INTEGER NOT NULL DEFAULT 0,
        last_error           TEXT,
        last_error_kind      TEXT,
        last_error_at        TEXT,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        last_elapsed_s       REAL
    );
    """,
)
