"""Persistent embedding cache: SQLite at `<data_dir>/embeddings.sqlite3`.

Keyed by (model name, blake2b(text)); vectors are stored as float16 blobs (half
the disk, far below the models' own precision) and come back as float32. Bulk
lookup goes through a temporary key table and one join, so warming 100k titles is
one query, not 100k.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import StoreError

if TYPE_CHECKING:
    from ..settings import Settings

__all__ = ["EmbeddingCache"]

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    key   BLOB NOT NULL,
    dim   INTEGER NOT NULL,
    vec   BLOB NOT NULL,
    PRIMARY KEY (model, key)
) WITHOUT ROWID;
"""


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class EmbeddingCache:
    """Thread-safe; `hits`/`misses` count lookups since construction."""

    def __init__(self, path: Path | str, *, dtype: str = "float16") -> None:
        self.path = Path(path)
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype("float16"), np.dtype("float32")):
            raise ValueError("dtype must be float16 or float32")
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open embedding cache {str(path)!r}: {exc}") from None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @classmethod
    def for_settings(cls, settings: Settings) -> EmbeddingCache:
        return cls(Path(settings.store.data_dir) / "embeddings.sqlite3")

    def get_many(self, model: str, texts: Sequence[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
        """`(vectors, found)`: float32 (n, dim) with zero rows where `found` is False."""
        n = len(texts)
        out = np.zeros((n, dim), dtype=np.float32)
        found = np.zeros(n, dtype=bool)
        if not n:
            return out, found
        keys = [_key(t) for t in texts]
        pos: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            pos.setdefault(k, []).append(i)
        with self._lock:
            try:
                self._db.execute("CREATE TEMP TABLE IF NOT EXISTS _want (key BLOB PRIMARY KEY) WITHOUT ROWID")
                self._db.execute("DELETE FROM _want")
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR IGNORE INTO _want(key) VALUES (?)", ((k,) for k in pos))
                self._db.execute("COMMIT")
                rows = self._db.execute(
                    "SELECT e.key, e.dim, e.vec FROM embeddings e JOIN _want w ON e.key = w.key "
                    "WHERE e.model = ?",
                    (model,),
                ).fetchall()
            except sqlite3.Error as exc:
                # a failed insert leaves the transaction open: every later BEGIN would fail too
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"embedding cache read failed: {exc}") from None
        for key, d, blob in rows:
            if d != dim:
                continue
            vec = np.frombuffer(
                blob,
                dtype=self.dtype
                if len(blob) == d * self.dtype.itemsize
                else (np.float32 if len(blob) == d * 4 else np.float16),
            )
            for i in pos.get(key, ()):
                out[i] = vec
                found[i] = True
        self.hits += int(found.sum())
        self.misses += int(n - found.sum())
        return out, found

    def put_many(self, model: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors)
        if not len(texts):
            return
        dim = int(vectors.shape[1])
        rows = [
            (model, _key(t), dim, v.astype(self.dtype).tobytes()) for t, v in zip(texts, vectors, strict=True)
        ]
        with self._lock:
            try:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR REPLACE INTO embeddings(model, key, dim, vec) VALUES (?,?,?,?)", rows
                )
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                log.warning("embedding cache write failed (continuing without caching): %s", exc)

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
