"""The store seam: what sessions, the engine, security, the collector and the runtime ask of a store.

SQL written against it is portable between SQLite and PostgreSQL: `?` placeholders (the
PostgreSQL store translates them), `INSERT ... ON CONFLICT`, `RETURNING`, ISO-8601 text for
times, integers for flags. Rows answer both `row["name"]` and `row[0]`, and `dict(row)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from ..models import Topic
from .records import DataVersion, HeatPoint, SourceHealth, StoredTopic

__all__ = ["Cursor", "Row", "Store", "Tx"]


class Row(Protocol):
    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> list[str]: ...


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Tx(Protocol):
    """One open transaction: statements run in it commit together or not at all."""

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor: ...

    def executemany(self, sql: str, params: Iterable[Sequence[Any]], /) -> Any: ...


class Store(Protocol):
    """A topic store. `open_store(settings)` picks SQLite or PostgreSQL from the settings."""

    @property
    def schema_version(self) -> int: ...

    def transaction(self) -> AbstractContextManager[Tx]: ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    def close(self) -> None: ...

    def record_cycle(self, outcomes: Iterable[Any], *, started_at: datetime | None = None,
                     now: datetime | None = None) -> int: ...

    def ingest(self, topics: Sequence[Topic], *, now: datetime | None = None) -> int: ...

    def prune(self, retention_days: int, *, keep_utterances_days: int = 0, now: datetime | None = None) -> int: ...

    def checkpoint(self) -> None: ...

    def current(self, *, source: str | None = None, lang: str | None = None, limit: int | None = None,
                ids: Sequence[str] | None = None, sources: Iterable[str] | None = None) -> list[StoredTopic]: ...

    def get(self, topic_id: str) -> StoredTopic | None: ...

    def history(self, topic_id: str) -> list[HeatPoint]: ...

    def health(self) -> list[SourceHealth]: ...

    def cycle_count(self) -> int: ...

    def data_version(self) -> DataVersion: ...

    def changes_since(self, version: DataVersion | None) -> tuple[DataVersion, frozenset[str] | None]: ...

