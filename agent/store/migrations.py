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
    # 2: workflow runs, live sessions, their caption decisions, API keys
    """
    CREATE TABLE workflow_runs (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        workflow    TEXT NOT NULL,
        trigger     TEXT NOT NULL,
        started_at  TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        status      TEXT NOT NULL,
        error       TEXT,
        steps       TEXT NOT NULL
    );
    CREATE INDEX workflow_runs_name ON workflow_runs (workflow, id);
    CREATE TABLE sessions (
        id          TEXT PRIMARY KEY,
        token_hash  TEXT NOT NULL,
        profile     TEXT NOT NULL,
        frequency   TEXT NOT NULL DEFAULT 'medium',
        created_at  TEXT NOT NULL
    );
    CREATE TABLE decisions (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL,
        at          TEXT NOT NULL,
        utterance   TEXT NOT NULL,
        show        INTEGER NOT NULL,
        reason      TEXT NOT NULL,
        topic_id    TEXT,
        score       REAL,
        detail      TEXT NOT NULL DEFAULT '',
        caption     TEXT
    );
    CREATE INDEX decisions_session ON decisions (session_id, id);
    ALTER TABLE topics ADD COLUMN ingested INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE api_keys (
        key_hash    TEXT PRIMARY KEY,
        label       TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    """,
    # 3: a session belongs to the key that made it; decisions keep a keyed hash and the length of
    # the utterance, not its text (kept only when the operator opts in, so text already stored is
    # blanked here); workflow runs name their session so erasing one erases them; the install's secrets
    """
    ALTER TABLE sessions ADD COLUMN owner TEXT;
    ALTER TABLE decisions ADD COLUMN utterance_hmac TEXT;
    ALTER TABLE decisions ADD COLUMN utterance_chars INTEGER NOT NULL DEFAULT 0;
    UPDATE decisions SET utterance_chars = LENGTH(utterance), utterance = '';
    CREATE INDEX decisions_at ON decisions (at);
    ALTER TABLE workflow_runs ADD COLUMN session_id TEXT;
    CREATE INDEX workflow_runs_session ON workflow_runs (session_id);
    CREATE INDEX workflow_runs_started ON workflow_runs (started_at);
    CREATE TABLE install_secrets (
        name        TEXT PRIMARY KEY,
        value       TEXT NOT NULL
    );
    """,
    # 4: what a re-index by delta reads: the topics a cycle wrote (by cycle), and a record of each
    # prune that removed rows (a prune rewrites histories of every source, so readers start over)
    """
    CREATE INDEX observations_cycle ON observations (cycle_id);
    CREATE TABLE prunes (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        at          TEXT NOT NULL,
        removed     INTEGER NOT NULL
    );
    """,
    # 5: a stored key is a client's or an admin's (ingest, workflows, keys). Keys made before roles
    # become clients, except the one `serve` minted on its first start: that is the operator's own
    """
    ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'client';
    UPDATE api_keys SET role = 'admin' WHERE label = 'serve';
    """,
    # 6: the watch alerts sent, one row per owner, group and story (the latest), so a story never
    # alerts twice across a restart or from another instance, and GET /v1/alerts outlives a process
    """
    CREATE TABLE watch_alerts (
        owner       TEXT NOT NULL,
        grp         TEXT NOT NULL,
        story_id    TEXT NOT NULL,
        platforms   INTEGER NOT NULL,
        at          TEXT NOT NULL,
        alert       TEXT NOT NULL,
        PRIMARY KEY (owner, grp, story_id)
    );
    CREATE INDEX watch_alerts_owner_at ON watch_alerts (owner, at);
    """,
    # 7: each key's own watch list and push channels, in the store every instance reads (they were a
    # file per key in one instance's data dir, which another instance never saw)
    """
    CREATE TABLE watch_lists (
        owner       TEXT PRIMARY KEY,
        text        TEXT NOT NULL,
        urls        TEXT NOT NULL,
        updated_at  TEXT NOT NULL
    );
    """,
    # 8: an alert is claimed, then sent, then marked: `state` pending until a channel took it (or it
    # expired), `lease_until` while one instance is sending it, so a kill between claim and send is
    # sent later by whoever claims it next; the rows before this were sent
    """
    ALTER TABLE watch_alerts ADD COLUMN state TEXT NOT NULL DEFAULT 'sent';
    ALTER TABLE watch_alerts ADD COLUMN lease_until TEXT;
    ALTER TABLE watch_alerts ADD COLUMN expires_at TEXT;
    ALTER TABLE watch_alerts ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX watch_alerts_pending ON watch_alerts (state, lease_until);
    """,
    # 9: who said a decision's line, where the glasses diarize speech (MentraOS `speakerId`)
    """
    ALTER TABLE decisions ADD COLUMN speaker TEXT;
    """,
)
