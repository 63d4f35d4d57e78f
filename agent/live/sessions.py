"""Live glasses sessions: conversation window, gate state, what was shown and why.

Session state that matters after a restart (id, owner, token, profile, every decision)
is in the store; the conversation window is deliberately memory-only — speech
from before a restart is stale by the time the service is back.

What the store keeps of an utterance is its length and a keyed hash (HMAC-SHA256
under a secret made once per install), not its words: the glasses hear people who
never agreed to be recorded. The words are kept only when the operator opts in
(`TRENDLENS_KEEP_UTTERANCES_DAYS`), and retention blanks them after that many days.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.captions.caption import Caption
from agent.captions.profiles import DEFAULT_PROFILE, get_profile
from agent.errors import InputError
from agent.live.gating import Decision, Frequency, GatePolicy, SessionGate
from agent.models import utcnow
from agent.ranking.window import ConversationWindow
from agent.store import Store
from agent.store.session_rows import (
    decision_rows,
    drop_secret,
    erase_session_rows,
    insert_session,
    install_secret,
    record_decision,
    session_row,
)
from agent.text import MAX_TEXT_CHARS

__all__ = ["MAX_LIVE", "MAX_LIVE_PER_OWNER", "Session", "SessionManager", "SessionStore",
           "clean_utterance"]

UTTERANCE_SECRET = "utterance_hmac"  # its row in install_secrets

MAX_LIVE = 10_000  # sessions held in memory at most, on this instance
# sessions of one owner (an API key; the glasses platforms count as one) held in memory at most: a
# key that makes more pushes out its own least recently used, never another key's
MAX_LIVE_PER_OWNER = 1_000
_RAW_CHARS = 2 * MAX_TEXT_CHARS  # room for the spacing and control characters cleaning drops


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def clean_utterance(text: Any) -> tuple[str, str | None]:
    """Normalise one utterance; returns (text, warning). Empty text is an InputError."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("utterance is not valid UTF-8") from None
    if not isinstance(text, str):
        raise InputError("utterance text must be a string")
    # cut before looking at each character, so a huge text costs no more than a long one
    cut = len(text) > _RAW_CHARS
    text = text[-_RAW_CHARS:]
    text = "".join(ch for ch in text if ch.isprintable() or ch in " \t\n")
    text = " ".join(text.split())
    if not text:
        raise InputError("utterance text is empty")
    if cut or len(text) > MAX_TEXT_CHARS:
        # keep the end: the newest words are what the table is talking about now
        return text[-MAX_TEXT_CHARS:], f"utterance truncated to its last {MAX_TEXT_CHARS} characters"
    return text, None


@dataclass
class Session:
    id: str
    profile: str
    frequency: Frequency
    token_hash: str
    owner: str | None = None  # the hash of the API key that made it; None: a glasses platform's (no key reaches it)
    window: ConversationWindow = field(default_factory=ConversationWindow)
    gate: SessionGate = field(default_factory=SessionGate)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_caption: Caption | None = None
    speaker: str | None = None  # who said the line being heard, where the glasses diarize (recorded with it)

    def check_token(self, token: str | None) -> bool:
        """The session's own token: it lets a HUD page watch, never drive."""
        return bool(token) and hmac.compare_digest(self.token_hash, _hash(token or ""))

    def owned_by(self, key_hash: str | None) -> bool:
        return self.owner is not None and key_hash is not None and hmac.compare_digest(self.owner, key_hash)


class SessionStore(Protocol):
    """Where session state lives. In-process today (`SessionManager`, rows in the store, live
    state in memory); an instance-shared one is the scale-out seam."""

    def create(self, profile: str = ..., frequency: Frequency = ..., *, owner: str | None = ...
               ) -> tuple[Session, str]: ...

    def ensure(self, session_id: str, profile: str) -> Session: ...

    def get(self, session_id: str) -> Session | None: ...

    def peek(self, session_id: str) -> Session | None: ...

    def erase(self, session_id: str) -> bool: ...

    def forget(self, session_id: str) -> None: ...

    def record(self, session: Session, utterance: str, decision: Decision, caption: Caption | None) -> None: ...

    def history(self, session_id: str, *, shown_only: bool = True, limit: int = 100) -> list[dict[str, Any]]: ...

    def __len__(self) -> int: ...


class SessionManager:
    def __init__(self, store: Store, policy: GatePolicy | None = None, *, max_live: int = MAX_LIVE,
                 max_live_per_owner: int = MAX_LIVE_PER_OWNER, keep_text: bool = False) -> None:
        self.store = store
        self.policy = policy or GatePolicy()
        self.max_live, self.max_live_per_owner = max_live, max_live_per_owner
        self.keep_text = keep_text  # store utterance words (the operator opted in); retention blanks them
        self._secret: bytes | None = None
        # least recently used first; an evicted session comes back from the store on its next
        # utterance, with a fresh (empty) conversation window
        self._live: OrderedDict[str, Session] = OrderedDict()
        self._by_owner: dict[str | None, OrderedDict[str, None]] = {}  # the same ids per owner, in the same order

    def create(self, profile: str = DEFAULT_PROFILE, frequency: Frequency = "medium", *,
               owner: str | None = None) -> tuple[Session, str]:
        """A new session owned by the key hashed as `owner`, and its (watch-only) token."""
        get_profile(profile)  # unknown profiles fail here, listing the valid ones
        session_id = "s_" + secrets.token_urlsafe(12)
        token = secrets.token_urlsafe(24)
        insert_session(self.store, session_id, token_hash=_hash(token), profile=profile, frequency=frequency,
                       owner=owner)
        session = self._materialise(session_id, profile, frequency, _hash(token), owner)
        return session, token

    def ensure(self, session_id: str, profile: str) -> Session:
        """The session with this id, created when a glasses platform names one we have not seen."""
        existing = self.get(session_id)
        if existing is not None:
            return existing
        token_hash = _hash(secrets.token_urlsafe(24))  # reached through the platform, not our HUD page
        insert_session(self.store, session_id, token_hash=token_hash, profile=profile, frequency="medium",
                       owner=None, if_absent=True)
        return self._materialise(session_id, profile, "medium", token_hash)

    def peek(self, session_id: str) -> Session | None:
        """The session when it is held in memory; never asks the store (safe on the event loop)."""
        live = self._live.get(session_id)
        if live is not None:
            self._live.move_to_end(session_id)
            self._by_owner[live.owner].move_to_end(session_id)
        return live

    def get(self, session_id: str) -> Session | None:
        """The session, from memory or else the store (a blocking query: call it off the event loop)."""
        live = self.peek(session_id)
        if live is not None:
            return live
        r = session_row(self.store, session_id)
        if r is None:
            return None
        return self._materialise(r["id"], r["profile"], r["frequency"], r["token_hash"], r["owner"])

    def _materialise(self, session_id: str, profile: str, frequency: Frequency, token_hash: str,
                     owner: str | None = None) -> Session:
        session = Session(id=session_id, profile=profile, frequency=frequency, token_hash=token_hash, owner=owner,
                          gate=SessionGate(policy=self.policy.with_frequency(frequency)))
        self._drop(session_id)
        self._live[session_id] = session
        mine = self._by_owner.setdefault(owner, OrderedDict())
        mine[session_id] = None
        while len(mine) > self.max_live_per_owner:
            self._drop(next(iter(mine)))
        while len(self._live) > self.max_live:
            # the owner holding the most pays, so a key with few sessions keeps them however many
            # another key makes
            largest = max(self._by_owner.values(), key=len)
            self._drop(next(iter(largest)))
        return session

    def _drop(self, session_id: str) -> None:
        session = self._live.pop(session_id, None)
        if session is None:
            return
        mine = self._by_owner[session.owner]
        del mine[session_id]
        if not mine:
            del self._by_owner[session.owner]

    def __len__(self) -> int:
        return len(self._live)

    def use_secret(self, secret: bytes) -> None:
        """Hash utterances under the operator's key (settings or a mounted file) from now on, and
        delete the one the store kept, so that a copy of the store holds no key to its hashes."""
        drop_secret(self.store, UTTERANCE_SECRET)
        self._secret = secret

    def _utterance_key(self) -> bytes:
        """The install's HMAC key for utterances: the operator's (`use_secret`), else made by whichever
        instance asks first and kept in the store, shared."""
        if self._secret is None:
            self._secret = install_secret(self.store, UTTERANCE_SECRET)
        return self._secret

    def utterance_hash(self, utterance: str) -> str:
        """Tells two equal utterances apart from different ones without keeping either."""
        return hmac.new(self._utterance_key(), utterance.encode(), hashlib.sha256).hexdigest()

    def record(self, session: Session, utterance: str, decision: Decision, caption: Caption | None) -> None:
        digest = self.utterance_hash(utterance)
        # a session erased meanwhile (on this instance or another) records nothing more
        if not record_decision(self.store, session.id, (
                utcnow().isoformat(), utterance[:500] if self.keep_text else "", digest, len(utterance),
                int(decision.show), decision.reason, decision.topic_id, decision.score, decision.detail,
                json.dumps(caption.to_public(), ensure_ascii=False) if caption else None, session.speaker)):
            self._drop(session.id)

    def erase(self, session_id: str) -> bool:
        """Delete the session with its decisions, captions and workflow runs, down to the bytes on disk
        (see `Store.checkpoint`); False when there was no such session."""
        found = erase_session_rows(self.store, session_id)
        self._drop(session_id)
        self.store.checkpoint()
        return found

    def forget(self, session_id: str) -> None:
        """Drop the session from this instance's memory (erased elsewhere: the rows are gone already)."""
        self._drop(session_id)

    def history(self, session_id: str, *, shown_only: bool = True, limit: int = 100) -> list[dict[str, Any]]:
        rows = decision_rows(self.store, session_id, shown_only=shown_only, limit=limit)
        out = []
        for r in reversed(rows):
            decision = {"at": r["at"], "utterance": r["utterance"] or None, "chars": r["utterance_chars"],
                        "show": bool(r["show"]), "reason": r["reason"], "topic_id": r["topic_id"],
                        "score": r["score"], "detail": r["detail"]}
            if r["speaker"] is not None:
                decision["speaker"] = r["speaker"]
            caption = json.loads(r["caption"]) if r["caption"] else None
            out.append({**(caption or {}), "decision": decision} if caption else {"decision": decision})
        return out
