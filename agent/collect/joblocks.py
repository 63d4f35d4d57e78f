"""Which instance runs a scheduled job: every instance schedules every job, and asks here first.

One process needs no coordination (APScheduler's `max_instances=1` already keeps a job from
overlapping itself), so `LocalJobLocks` says yes to everything. Instances sharing a PostgreSQL
database use `AdvisoryJobLocks`: a session-level advisory lock per job, taken by whichever
instance asks first and kept for as long as that instance's connection lives.

Why a PostgreSQL session lock, over a Redis lock with fencing or a shared job store: it is
released by the server itself when the holder's connection ends, so a kill -9 (or a crashed
host, once TCP keepalives notice) frees the job with no lease to expire and no clock to trust;
it needs no server beyond the database the instances already share; and there is no token
to fence with because the store writes of a fetch cycle are whole transactions anyway. Holding
the lock between runs (rather than around each run) keeps a source on one instance, so it is
fetched once per interval, not once per instance; another instance asks again on each of its
own ticks, so it takes the job over within one interval of the holder dying.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import zlib
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from agent.errors import StoreError
from agent.settings import Settings

__all__ = ["AdvisoryJobLocks", "JobLocks", "LocalJobLocks", "job_locks_for", "run_exclusive"]

log = logging.getLogger("trendlens.schedule")

_NAMESPACE = 0x544C  # first key of the two-int advisory locks: "TL"; the second is the job's name hashed


class JobLocks(Protocol):
    def claim(self, job: str) -> bool:
        """True when this instance should run `job` now (it holds, or has just taken, the job)."""
        ...

    def close(self) -> None: ...


class LocalJobLocks:
    """One instance: every job is ours."""

    def claim(self, job: str) -> bool:
        return True

    def close(self) -> None:
        pass


def _key(job: str) -> int:
    """The job name as a signed 32-bit advisory-lock key (stable across processes and versions)."""
    return zlib.crc32(job.encode()) - 2**31


class AdvisoryJobLocks:
    """Session-level PostgreSQL advisory locks on one dedicated connection."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None
        self._held: set[str] = set()
        self._lock = threading.Lock()

    def _connection(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed or self._conn.broken:
            self._held.clear()  # locks die with the connection that held them
            self._conn = psycopg.connect(
                self.url, autocommit=True, connect_timeout=10, application_name="trendlens-jobs",
                # both ends probe an idle connection: a holder whose host vanished (no FIN ever sent)
                # loses its locks after about idle + interval * count = 25 s
                keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3,
                options="-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3")
        return self._conn

    def claim(self, job: str) -> bool:
        import psycopg

        with self._lock:
            for attempt in (1, 2):  # a broken connection is replaced once, then we give up for this tick
                try:
                    return self._claim(job)
                except psycopg.Error as exc:
                    if self._conn is not None and not self._conn.closed:
                        self._conn.close()
                    if attempt == 2:
                        log.warning("job %s skipped on this instance: cannot reach the lock database (%s)", job,
                                    " ".join(str(exc).split()))
        return False

    def _claim(self, job: str) -> bool:
        conn = self._connection()
        key = _key(job)
        if job in self._held:
            # still ours? (objsubid 2 marks the two-int form of the key)
            row = conn.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                               "AND pid = pg_backend_pid() AND classid = %s AND objid = %s AND objsubid = 2",
                               (_NAMESPACE, key & 0xFFFFFFFF)).fetchone()
            if row and row[0]:
                return True
            self._held.discard(job)
        if conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (_NAMESPACE, key)).fetchone()[0]:
            self._held.add(job)
            log.info("job %s runs on this instance", job)
            return True
        return False

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and not self._conn.closed:
                self._conn.close()  # the server releases every lock this connection held
            self._held.clear()


def job_locks_for(settings: Settings) -> JobLocks:
    """Advisory locks on the shared database when there is one; else the single-instance default."""
    url = settings.store.database_url
    if url is None:
        return LocalJobLocks()
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:  # pragma: no cover - psycopg is a dependency
        raise StoreError("TRENDLENS_DATABASE_URL needs psycopg: pip install 'psycopg[binary]'") from exc
    return AdvisoryJobLocks(url.get_secret_value())


async def run_exclusive(locks: JobLocks, job: str, func: Callable[..., Awaitable[Any]], *args: Any,
                        **kwargs: Any) -> None:
    """Run a scheduled job here only when this instance holds it; the others skip the tick."""
    if await asyncio.to_thread(locks.claim, job):
        await func(*args, **kwargs)
