"""Persistence behind the `Store` protocol: SQLite by default, PostgreSQL when a URL names it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Store
from .records import DataVersion, HeatPoint, SourceHealth, StoredTopic, current_order
from .sqlite import SQLiteStore

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["DataVersion", "HeatPoint", "SQLiteStore", "SourceHealth", "Store", "StoredTopic", "current_order",
           "open_store", "store_location"]


def open_store(settings: Settings) -> Store:
    """The store the settings name: `TRENDLENS_DATABASE_URL`, else SQLite in the data dir."""
    options = settings.store
    if options.database_url is None:
        return SQLiteStore(options.db_path)
    from .postgres import PostgresStore  # psycopg loads only for deployments that use it

    return PostgresStore(options.database_url.get_secret_value(), pool_size=options.database_pool_size)


def store_location(settings: Settings) -> str:
    """Where the store is, fit for a log line (no password)."""
    options = settings.store
    if options.database_url is None:
        return str(options.db_path.resolve())
    from .postgres import redact

    return redact(options.database_url.get_secret_value())
