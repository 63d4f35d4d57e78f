"""The embedded default: one SQLite file in WAL mode, shared by the threads of one process."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .migrations import MIGRATIONS
from .sql import SQLStore

__all__ = ["SQLiteStore"]


def _statements(script: str) -> list[str]:
    """Split a migration script into whole statements (SQLite's own parser says where one ends)."""
    out, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip().strip(";").strip():
        out.append(pending.strip())
    return out


class SQLiteStore(SQLStore):
    """Thread-safe wrapper around one SQLite connection."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open store {str(path)!r}: {exc}") from None
        self._db.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        with self._lock:
            self._wal()
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            # deleted rows are overwritten with zeros, not left in free pages: an erased session's
            # words (when kept) must not be readable in the file afterwards
            self._db.execute("PRAGMA secure_delete=ON")
            self._migrate()

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _wal(self) -> None:
        # Switching a new file to WAL needs it alone for a moment, and SQLite answers "locked" at
        # once, without its busy timeout, when another process is opening the same new file.
        for attempt in range(50):
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or attempt == 49:
                    raise StoreError(f"cannot open store {str(self.path)!r}: {exc}") from None
                time.sleep(0.05 + 0.01 * attempt)

    # -- plumbing ----------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        """Each migration runs in its own write transaction with its version bump. The version is read
        again inside that transaction, so two processes opening a new file at once apply it once."""
        if self.schema_version > len(MIGRATIONS):
            raise StoreError(f"store {str(self.path)!r} has schema v{self.schema_version}, newer than this "
                             f"TrendLens (v{len(MIGRATIONS)}); upgrade TrendLens")
        for version, script in enumerate(MIGRATIONS, start=1):
            self._db.execute("BEGIN IMMEDIATE")  # the write lock first, then look
            try:
                if self.schema_version < version:
                    # statement by statement: executescript would commit our open transaction first
                    for statement in _statements(script):
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {version}")
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise StoreError(f"store {str(self.path)!r}: migration {version} failed: {exc}") from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback()
                raise StoreError(f"store write failed: {exc}") from None
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"store read failed: {exc}") from None

    def checkpoint(self) -> None:
        """Copy the WAL into the database and truncate it, so erased rows leave the -wal file too."""
        with self._lock:
            try:
                busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.Error as exc:
                raise StoreError(f"store checkpoint failed: {exc}") from None
        if busy:  # another process is reading: its snapshot holds the WAL until it finishes
            raise StoreError(f"store {str(self.path)!r}: WAL checkpoint blocked by a reader; try again")

    def close(self) -> None:
        with self._lock:
            self._db.close()
