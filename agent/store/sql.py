"""The store's queries, written once in SQL that SQLite and PostgreSQL both run.

A backend supplies the connection plumbing (`transaction`, `query`, migrations); everything a
caller asks of the store (fetch cycles, ingest, retention, current topics, history, health)
lives here, so the two backends cannot drift apart.

One transaction per fetch cycle: a process killed mid-cycle leaves every earlier committed
cycle intact and the interrupted one absent.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from ..models import Topic, utcnow
from .base import Row, Tx
from .records import DataVersion, HeatPoint, SourceHealth, StoredTopic, current_order

__all__ = ["SQLStore"]


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="microseconds")


class SQLStore(ABC):
    """The queries of every store; subclasses own the connection."""

    @property
    @abstractmethod
    def schema_version(self) -> int: ...

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Tx]: ...

    @abstractmethod
    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    @abstractmethod
    def close(self) -> None: ...

    # -- writes --------------------------------------------------------------
    def record_cycle(self, outcomes: Iterable[Any], *, started_at: datetime | None = None,
                     now: datetime | None = None) -> int:
        """Store one fetch cycle (a list of `SourceOutcome`) atomically; returns the cycle id."""
        now = now or utcnow()
        started = _iso(started_at or now)
        stamp = _iso(now)
        outcomes = list(outcomes)
        with self.transaction() as db:
            cycle_id = self._new_cycle(db, started, stamp, [o.source for o in outcomes],
                                       ok=sum(o.ok for o in outcomes), failed=sum(not o.ok for o in outcomes))
            for outcome in outcomes:
                if outcome.ok:
                    self._write_topics(db, outcome.topics, cycle_id, stamp)
                    db.execute(
                        """INSERT INTO source_health (source, last_attempt, last_success, last_count,
                               consecutive_failures, last_elapsed_s) VALUES (?, ?, ?, ?, 0, ?)
                           ON CONFLICT (source) DO UPDATE SET last_attempt=excluded.last_attempt,
                               last_success=excluded.last_success, last_count=excluded.last_count,
                               consecutive_failures=0, last_elapsed_s=excluded.last_elapsed_s""",
                        (outcome.source, stamp, stamp, len(outcome.topics), outcome.elapsed_s))
                else:
                    db.execute(
                        """INSERT INTO source_health (source, last_attempt, last_error, last_error_kind,
                               last_error_at, consecutive_failures, last_elapsed_s) VALUES (?, ?, ?, ?, ?, 1, ?)
                           ON CONFLICT (source) DO UPDATE SET last_attempt=excluded.last_attempt,
                               last_error=excluded.last_error, last_error_kind=excluded.last_error_kind,
                               last_error_at=excluded.last_error_at, last_elapsed_s=excluded.last_elapsed_s,
                               consecutive_failures=source_health.consecutive_failures + 1""",
                        (outcome.source, stamp, str(outcome.error), outcome.error.kind, stamp, outcome.elapsed_s))
        return cycle_id

    @staticmethod
    def _new_cycle(db: Tx, started: str, finished: str, sources: list[str], *, ok: int, failed: int) -> int:
        # RETURNING, not lastrowid: PostgreSQL has no lastrowid, and SQLite has RETURNING since 3.35
        cur = db.execute("INSERT INTO cycles (started_at, finished_at, sources, ok, failed) VALUES (?, ?, ?, ?, ?) "
                         "RETURNING id", (started, finished, json.dumps(sources), ok, failed))
        return int(cur.fetchone()[0])

    def _write_topics(self, db: Tx, topics: Iterable[Topic], cycle_id: int, stamp: str,
                      ingested: bool = False) -> None:
        seen: set[str] = set()
        rows, observations = [], []
        for t in topics:
            if t.id in seen:  # a platform listing one item twice must not double its history
                continue
            seen.add(t.id)
            rows.append((t.id, t.source, t.item_id, t.title, t.summary, t.url, t.lang, t.rank, t.heat, t.heat_text,
                         json.dumps(t.extra, ensure_ascii=False, default=str), stamp, stamp, int(ingested)))
            observations.append((t.id, cycle_id, stamp, t.rank, t.heat))
        # executemany: one statement prepared once; on PostgreSQL one pipelined round trip, not two per topic
        db.executemany(
            """INSERT INTO topics (id, source, item_id, title, summary, url, lang, rank, heat, heat_text,
                   extra, first_seen, last_seen, ingested) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (id) DO UPDATE SET title=excluded.title, summary=excluded.summary,
                   url=excluded.url, lang=excluded.lang, rank=excluded.rank, heat=excluded.heat,
                   heat_text=excluded.heat_text, extra=excluded.extra, last_seen=excluded.last_seen,
                   ingested=excluded.ingested""", rows)
        db.executemany("INSERT INTO observations (topic_id, cycle_id, observed_at, rank, heat) VALUES (?, ?, ?, ?, ?)",
                       observations)

    def ingest(self, topics: Sequence[Topic], *, now: datetime | None = None) -> int:
        """Store user-supplied topics. They stay current (beside every source's snapshot) until
        retention prunes them; ingesting the same id again updates it and extends its history."""
        stamp = _iso(now or utcnow())
        with self.transaction() as db:
            cycle_id = self._new_cycle(db, stamp, stamp, ["ingest"], ok=1, failed=0)
            self._write_topics(db, topics, cycle_id, stamp, ingested=True)
        return len(topics)

    def prune(self, retention_days: int, *, keep_utterances_days: int = 0, now: datetime | None = None) -> int:
        """Drop observations, caption decisions and workflow runs older than the retention window (and
        topics left with no observation, sessions left with no decision); blank utterance words older
        than `keep_utterances_days`."""
        now = now or utcnow()
        cutoff = _iso(now - timedelta(days=retention_days))
        words_cutoff = _iso(now - timedelta(days=keep_utterances_days))
        with self.transaction() as db:
            removed = db.execute("DELETE FROM observations WHERE observed_at < ?", (cutoff,)).rowcount
            gone = db.execute("DELETE FROM topics WHERE last_seen < ? AND id NOT IN "
                              "(SELECT topic_id FROM observations)", (cutoff,)).rowcount
            gone += db.execute("DELETE FROM cycles WHERE finished_at < ?", (cutoff,)).rowcount
            if removed or gone:  # in the same transaction: a reader sees the deletions and this row together
                db.execute("INSERT INTO prunes (at, removed) VALUES (?, ?)", (_iso(now), removed))
            db.execute("DELETE FROM decisions WHERE at < ?", (cutoff,))
            db.execute("DELETE FROM workflow_runs WHERE started_at < ?", (cutoff,))
            db.execute("DELETE FROM watch_alerts WHERE at < ?", (cutoff,))
            db.execute("UPDATE decisions SET utterance = '' WHERE at < ? AND utterance <> ''", (words_cutoff,))
            db.execute("DELETE FROM sessions WHERE created_at < ? AND id NOT IN "
                       "(SELECT session_id FROM decisions)", (cutoff,))
        self.checkpoint()
        return int(removed)

    def checkpoint(self) -> None:
        """Make deleted rows leave every file now. A no-op here; SQLite truncates its WAL. PostgreSQL
        reclaims dead rows by its own (auto)vacuum; they are unreachable through SQL at once."""
        return None

    # -- reads ----------------------------------------------------------------
    _CURRENT = """
        SELECT t.*,
               (SELECT COUNT(*) FROM observations o WHERE o.topic_id = t.id) AS n_obs,
               (SELECT o.heat FROM observations o WHERE o.topic_id = t.id
                 ORDER BY o.observed_at DESC LIMIT 1 OFFSET 1) AS prev_heat,
               (SELECT o.observed_at FROM observations o WHERE o.topic_id = t.id
                 ORDER BY o.observed_at DESC LIMIT 1 OFFSET 1) AS prev_at
        FROM topics t LEFT JOIN source_health h ON h.source = t.source
    """
    _IS_CURRENT = " WHERE (t.last_seen = h.last_success OR t.ingested = 1)"

    def current(self, *, source: str | None = None, lang: str | None = None,
                limit: int | None = None, ids: Sequence[str] | None = None,
                sources: Iterable[str] | None = None) -> list[StoredTopic]:
        """Topics of each source's last good snapshot (of `sources` only, when given), in `current_order`:
        hottest first, then by rank, then by id."""
        where: list[str] = []
        params: list[Any] = []
        if source:
            where.append("t.source = ?")
            params.append(source)
        if sources is not None:
            names = sorted(set(sources))
            if not names:  # `IN ()` is valid SQLite but a syntax error in PostgreSQL
                return []
            where.append(f"t.source IN ({','.join('?' * len(names))})")
            params.extend(names)
        if lang:
            where.append("t.lang = ?")
            params.append(lang)
        if ids is not None:
            if not ids:  # `IN ()` is valid SQLite but a syntax error in PostgreSQL
                return []
            where.append(f"t.id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        sql = self._CURRENT + self._IS_CURRENT + "".join(" AND " + w for w in where)
        sql += " ORDER BY t.heat IS NULL, t.heat DESC, t.rank IS NOT NULL, t.rank"
        if limit:
            sql += f" LIMIT {int(limit)}"
        # ties sorted here, not in SQL: the two databases order NULLs and text differently, and a
        # re-read of a few sources must merge into exactly the order a full read gives
        return sorted((self._stored(r) for r in self.query(sql, params)), key=current_order)

    def get(self, topic_id: str) -> StoredTopic | None:
        rows = self.query(self._CURRENT + " WHERE t.id = ?", (topic_id,))
        return self._stored(rows[0]) if rows else None

    def history(self, topic_id: str) -> list[HeatPoint]:
        rows = self.query("SELECT observed_at, rank, heat FROM observations WHERE topic_id = ? ORDER BY observed_at",
                          (topic_id,))
        return [HeatPoint(observed_at=r["observed_at"], rank=r["rank"], heat=r["heat"]) for r in rows]

    def health(self) -> list[SourceHealth]:
        return [SourceHealth(**dict(r)) for r in self.query("SELECT * FROM source_health ORDER BY source")]

    def cycle_count(self) -> int:
        return int(self.query("SELECT COUNT(*) FROM cycles")[0][0])

    def data_version(self) -> DataVersion:
        """Changes whenever a fetch cycle, an ingest or a prune commits, from this process or any other.

        The count as well as the newest id: with several writers, a cycle numbered below the
        newest one seen can still commit later (ids are handed out before commit).
        """
        row = self.query("SELECT (SELECT COUNT(*) FROM cycles), (SELECT COALESCE(MAX(id), 0) FROM cycles), "
                         "(SELECT COUNT(*) FROM prunes)")[0]
        return DataVersion(int(row[0]), int(row[1]), int(row[2]))

    def changes_since(self, version: DataVersion | None) -> tuple[DataVersion, frozenset[str] | None]:
        """The data version now, and the sources whose current topics may differ from what they were at
        `version`: those a cycle since fetched, and those of every topic a cycle since wrote (an
        ingest's, whatever their source). None when it cannot tell, so every source may differ: no
        `version`, a prune since, or a cycle numbered below `version`'s newest that committed later.

        One statement, so one snapshot on both databases: the version and the changes agree.
        """
        if version is None:
            return self.data_version(), None
        rows = self.query(
            """SELECT 'cycle' AS kind, c.id AS n, c.sources AS name FROM cycles c WHERE c.id > ?
               UNION ALL SELECT DISTINCT 'wrote', 0, t.source FROM observations o JOIN topics t ON t.id = o.topic_id
                   WHERE o.cycle_id > ?
               UNION ALL SELECT 'cycles', COUNT(*), '' FROM cycles
               UNION ALL SELECT 'newest', COALESCE(MAX(id), 0), '' FROM cycles
               UNION ALL SELECT 'prunes', COUNT(*), '' FROM prunes""", (version.newest, version.newest))
        marks = {"cycles": 0, "newest": 0, "prunes": 0}
        new_cycles = 0
        changed: set[str] = set()
        for kind, n, name in ((r[0], int(r[1]), r[2]) for r in rows):
            if kind == "cycle":
                new_cycles += 1
                changed.update(json.loads(name))
            elif kind == "wrote":
                changed.add(name)
            else:
                marks[kind] = n
        now = DataVersion(**marks)
        if now.prunes != version.prunes or now.cycles != version.cycles + new_cycles:
            return now, None
        return now, frozenset(changed)

    @staticmethod
    def _stored(row: Row) -> StoredTopic:
        ref = row["id"] if row["id"] != f"{row['source']}:{row['item_id']}" else None
        topic = Topic(source=row["source"], item_id=row["item_id"], title=row["title"], summary=row["summary"], ref=ref,
                      rank=row["rank"], heat=row["heat"], heat_text=row["heat_text"], url=row["url"],
                      lang=row["lang"], fetched_at=datetime.fromisoformat(row["last_seen"]),
                      extra=json.loads(row["extra"] or "{}"))
        velocity = None
        if row["prev_heat"] is not None and row["heat"] is not None and row["prev_at"]:
            hours = (datetime.fromisoformat(row["last_seen"]) - datetime.fromisoformat(row["prev_at"])
                     ).total_seconds() / 3600
            if hours > 0:
                velocity = (row["heat"] - row["prev_heat"]) / hours
        return StoredTopic(topic=topic, first_seen=row["first_seen"], last_seen=row["last_seen"],
                           velocity=velocity, observations=int(row["n_obs"]))
