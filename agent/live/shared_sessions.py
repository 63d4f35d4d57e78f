"""`RedisSessionState`: a session's live state (gate timing, conversation window) kept in Redis.

The session rows are in the shared database; what decides the next caption is in
memory. With `TRENDLENS_REDIS_URL` set, each utterance loads that state from one
Redis key, runs, and saves it back, under a Redis lock per session, so an
utterance sent to any instance continues the same conversation and two
instances never decide for one session at once. The key expires with the
conversation window's own horizon plus a margin: idle sessions cost nothing.

The lock only fences the save if the save checks it: a holder that lost its lease
(a pause, a partition) while another instance took the session over must not
write its older state over the newer one. So the state is written by one Lua
script that compares the lock's value with our token first; a save that lost
its lock is dropped and logged. The lease is renewed while the utterance runs,
retrying a failed renewal until the lease would have run out. A session with no
state key (new, expired or erased) starts fresh, not from this instance's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from agent.errors import OverloadError, TrendLensError
from agent.live.gating import Candidate, SessionGate
from agent.metrics import timed
from agent.ranking.window import ConversationWindow, Utterance
from agent.store.redis_options import redis_options

__all__ = ["RedisSessionState", "SessionBusy", "SharedStateError"]

log = logging.getLogger("trendlens.sessions")

STATE_TTL_S = 3600  # longer than any gate cooldown or window age: an hour-idle session starts fresh
# The lock's lease is short and renewed while its utterance runs: a killed holder stops renewing,
# so its lock lapses within LOCK_TIMEOUT_S and the next utterance, which waits up to LOCK_WAIT_S,
# goes ahead on another instance. A slow utterance (a remote embedder retrying) keeps its lock.
LOCK_TIMEOUT_S = 5.0
LOCK_RENEW_S = LOCK_TIMEOUT_S / 3
LOCK_WAIT_S = 8.0
RENEW_RETRY_S = 0.2  # after a failed renewal, try again this soon (while the lease lasts)

# KEYS[1] the due set; ARGV now, at most how many. The sessions due by now, each taken out as it is
# read, so of every instance that sweeps at once exactly one gets each.
_CLAIM_DUE = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do redis.call('ZREM', KEYS[1], id) end
return ids
"""

# KEYS[1] the lock, KEYS[2] the state; ARGV our lock token, the state, its TTL. 1 saved, 0 not ours.
_SAVE_IF_HELD = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1
"""


class SharedStateError(TrendLensError):
    """Redis, where instances share session state and rate limits, could not be reached (503)."""


class SessionBusy(OverloadError):
    """Another instance held the session's lock longer than an utterance may wait: 429, try again."""


def dump_state(window: ConversationWindow, gate: SessionGate) -> str:
    on, back = gate.on_screen, gate.held_back
    return json.dumps({
        "window": [[u.text, u.ts] for u in window._items],
        "chars": gate.chars_since_decision,
        "on_screen": [on.topic_id, on.score, on.key] if on is not None else None,
        "on_screen_until": gate.on_screen_until,
        "last_shown_at": None if math.isinf(gate.last_shown_at) else gate.last_shown_at,
        "read_s": gate.read_s,
        "shown": [list(s) for s in gate.shown],
        "held_back": [back[0].topic_id, back[0].score, back[0].key, back[1]] if back is not None else None,
        "cut": gate.cut,
        "sentence_due": gate.sentence_due,
    }, ensure_ascii=False)


def load_state(data: str, window: ConversationWindow, gate: SessionGate) -> None:
    state: dict[str, Any] = json.loads(data)
    window._items.clear()
    window._items.extend(Utterance(str(text), float(ts)) for text, ts in state["window"])
    gate.chars_since_decision = int(state["chars"])
    on = state["on_screen"]
    gate.on_screen = Candidate(topic_id=str(on[0]), score=float(on[1]), key=str(on[2])) if on else None
    gate.on_screen_until = float(state["on_screen_until"])
    gate.last_shown_at = float("-inf") if state["last_shown_at"] is None else float(state["last_shown_at"])
    gate.read_s = float(state.get("read_s", gate.policy.min_read_s))  # absent in an older instance's state
    gate.shown.clear()
    gate.shown.extend((float(at), str(story)) for at, story in state["shown"])
    held = state.get("held_back")  # absent in the state an older instance wrote
    gate.held_back = ((Candidate(topic_id=str(held[0]), score=float(held[1]), key=str(held[2])), float(held[3]))
                      if held else None)
    gate.cut = bool(state.get("cut", False))  # both absent in an older instance's state
    due = state.get("sentence_due")
    gate.sentence_due = float(due) if due is not None else None


def fresh_state() -> str:
    """The state of a session nothing was heard in yet."""
    return dump_state(ConversationWindow(), SessionGate())


class RedisSessionState:
    def __init__(self, url: str, *, prefix: str = "trendlens:session:") -> None:
        import redis.asyncio as aioredis

        self._redis: Any = aioredis.from_url(url, **redis_options())
        self._save = self._redis.register_script(_SAVE_IF_HELD)
        self._claim = self._redis.register_script(_CLAIM_DUE)
        self._prefix = prefix
        self._due_key = prefix + "due"  # session id -> when its held-back caption falls due
        self.lost_saves = 0  # saves dropped because the lock was no longer ours

    @asynccontextmanager
    async def held(self, session_id: str, window: ConversationWindow, gate: SessionGate) -> AsyncIterator[None]:
        """Lock the session across instances, load its state into `window`/`gate`, save it on the way out."""
        from redis.exceptions import LockError, RedisError

        lock_key, state_key = self._prefix + session_id + ":lock", self._prefix + session_id
        token = secrets.token_hex(16)
        lock = self._redis.lock(lock_key, timeout=LOCK_TIMEOUT_S, blocking_timeout=LOCK_WAIT_S)
        try:
            with timed("shared_load"):
                acquired = await lock.acquire(token=token)
                data = await self._redis.get(state_key) if acquired else None
        except (RedisError, OSError) as exc:
            raise SharedStateError(f"session state unavailable (Redis: {exc}); try again shortly") from exc
        if not acquired:
            raise SessionBusy(f"session {session_id} is busy on another instance")
        renewing = asyncio.create_task(self._renew(lock, session_id))
        try:
            load_state(fresh_state() if data is None else data, window, gate)
            yield
            try:
                with timed("shared_save"):
                    saved = await self._save(keys=[lock_key, state_key],
                                             args=[token, dump_state(window, gate), STATE_TTL_S])
            except (RedisError, OSError) as exc:  # the decision is recorded; the gate forgets this one
                raise SharedStateError(f"session state not saved (Redis: {exc})") from exc
            if not saved:
                # another instance holds the session now; its state is newer than ours
                self.lost_saves += 1
                log.warning("session %s: lock lost before the save; this utterance's state was dropped",
                            session_id)
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            try:
                await lock.release()
            except (LockError, RedisError, OSError):  # lapsed or unreachable: its lease ends it anyway
                pass

    @staticmethod
    async def _renew(lock: Any, session_id: str) -> None:
        """Keep the lease while the utterance runs; retry a failed renewal while the lease lasts."""
        from redis.exceptions import LockError, LockNotOwnedError, RedisError

        renewed = time.monotonic()
        delay = LOCK_RENEW_S
        while True:
            await asyncio.sleep(delay)
            try:
                await lock.reacquire()
            except LockNotOwnedError:
                log.warning("session %s: lock taken over by another instance; this utterance will not be saved",
                            session_id)
                return
            except (LockError, RedisError, OSError) as exc:
                if time.monotonic() - renewed + RENEW_RETRY_S >= LOCK_TIMEOUT_S:
                    log.warning("session %s: lock lease not renewed (%s); another instance may go ahead",
                                session_id, exc)
                    return
                delay = RENEW_RETRY_S
                continue
            renewed = time.monotonic()
            delay = LOCK_RENEW_S

    async def aclose(self) -> None:
        await self._redis.aclose()

    async def schedule(self, session_id: str, due: float | None) -> None:
        """When the session's held-back caption falls due (None: nothing waits), for whichever instance
        sweeps first (`claim_due`): the caption goes up even if the instance that heard the line is gone."""
        from redis.exceptions import RedisError

        try:
            if due is None:
                await self._redis.zrem(self._due_key, session_id)
            else:
                await self._redis.zadd(self._due_key, {session_id: due})
        except (RedisError, OSError) as exc:  # the line is answered; only its late caption is at stake
            log.warning("session %s: the held-back caption's time not shared (%s)", session_id,
                        type(exc).__name__)

    async def claim_due(self, now: float, *, limit: int = 100) -> list[str]:
        """The sessions whose held-back caption fell due by `now`, each claimed by one instance only."""
        from redis.exceptions import RedisError

        try:
            ids = await self._claim(keys=[self._due_key], args=[now, limit])
        except (RedisError, OSError) as exc:
            log.warning("held-back captions not swept (%s)", type(exc).__name__)
            return []
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def forget(self, session_id: str) -> None:
        """Erase the session's shared live state (its conversation window included) and its lock."""
        from redis.exceptions import RedisError

        try:
            await self._redis.zrem(self._due_key, session_id)
            await self._redis.delete(self._prefix + session_id, self._prefix + session_id + ":lock")
        except (RedisError, OSError) as exc:
            raise SharedStateError(f"session state not erased (Redis: {exc}); try again shortly") from exc
