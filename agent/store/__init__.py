"""SQLite persistence: schema migrations and queries."""

from .db import HeatPoint, SourceHealth, Store, StoredTopic

__all__ = ["HeatPoint", "SourceHealth", "Store", "StoredTopic"]
