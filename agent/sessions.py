"""Live glasses sessions: conversation window, gate state, what was shown and why.

Session state that matters after a restart (id, token, profile, every decision)
is in the store; the conversation window is deliberately memory-only — speech
from before a restart is stale by the time the service is back.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .captions.caption import Caption
from .captions.profiles import get_profile
from .errors import InputError
from .gating import Decision, GatePolicy, SessionGate
from .models import utcnow
from .ranking.window import ConversationWindow
from .store import Store

__all__ = ["MAX_UTTERANCE_CHARS", "Session", "SessionManager", "SessionStore", "clean_utterance"]

Frequency = Literal["low", "medium", "high"]
MAX_UTTERANCE_CHARS = 2000  # ~1 minute of fast speech; anything longer is not one utterance
_RAW_CHARS = 2 * MAX_UTTERANCE_CHARS  # room for the spacing and control characters cleaning drops


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
    if cut or len(text) > MAX_UTTERANCE_CHARS:
        # keep the end: the newest words are what the table is talking about now
        return text[-MAX_UTTERANCE_CHARS:], f"utterance truncated to its last {MAX_UTTERANCE_CHARS} characters"
    return text, None


@dataclass
class Session:
    id: str
    profile: str
    frequency: Frequency
    token_hash: str
    window: ConversationWindow = field(default_factory=ConversationWindow)
    gate: SessionGate = field(default_factory=SessionGate)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_caption: Caption | None = None

    def check_token(self, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.token_hash, _hash(token or ""))


class SessionStore(Protocol):
    """Where session state lives. In-process today (`SessionManager`, rows in the store, live
    state in memory); an instance-shared one is the scale-out seam."""

    def create(self, profile: str = ..., frequency: Frequency = ...) -> tuple[Session, str]: ...

    def ensure(self, session_id: str, profile: str) -> Session: ...

    def get(self, session_id: str) -> Session | None: ...

    def record(self, session: Session, utterance: str, decision: Decision, caption: Caption | None) -> None: ...

    def history(self, session_id: str, *, shown_only: bool = True, limit: int = 100) -> list[dict[str, Any]]: ...

    def __len__(self) -> int: ...


class SessionManager:
    def __init__(self, store: Store, policy: GatePolicy | None = None, *, max_live: int = 10_000) -> None:
        self.store = store
        self.policy = policy or GatePolicy()
        self.max_live = max_live
        # least recently used first; an evicted session comes back from the store on its next
        # utterance, with a fresh (empty) conversation window
        self._live: OrderedDict[str, Session] = OrderedDict()

    def create(self, profile: str = "hud-web", frequency: Frequency = "medium") -> tuple[Session, str]:
        get_profile(profile)  # unknown profiles fail here, listing the valid ones
        session_id = "s_" + secrets.token_urlsafe(12)
        token = secrets.token_urlsafe(24)
        with self.store.transaction() as db:
            db.execute("INSERT INTO sessions (id, token_hash, profile, frequency, created_at) VALUES (?, ?, ?, ?, ?)",
                       (session_id, _hash(token), profile, frequency, utcnow().isoformat()))
        session = self._materialise(session_id, profile, frequency, _hash(token))
        return session, token

    def ensure(self, session_id: str, profile: str) -> Session:
        """The session with this id, created when a glasses platform names one we have not seen."""
        existing = self.get(session_id)
        if existing is not None:
            return existing
        token_hash = _hash(secrets.token_urlsafe(24))  # reached through the platform, not our HUD page
        with self.store.transaction() as db:
            db.execute("INSERT INTO sessions (id, token_hash, profile, frequency, created_at) VALUES (?, ?, ?, "
                       "'medium', ?) ON CONFLICT (id) DO NOTHING",
                       (session_id, token_hash, profile, utcnow().isoformat()))
        return self._materialise(session_id, profile, "medium", token_hash)

    def get(self, session_id: str) -> Session | None:
        live = self._live.get(session_id)
        if live is not None:
            self._live.move_to_end(session_id)
            return live
        rows = self.store.query("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if not rows:
            return None
        r = rows[0]
        return self._materialise(r["id"], r["profile"], r["frequency"], r["token_hash"])

    def _materialise(self, session_id: str, profile: str, frequency: Frequency, token_hash: str) -> Session:
        session = Session(id=session_id, profile=profile, frequency=frequency, token_hash=token_hash,
                          gate=SessionGate(policy=self.policy.with_frequency(frequency)))
        self._live[session_id] = session
        while len(self._live) > self.max_live:
            self._live.popitem(last=False)
        return session

    def __len__(self) -> int:
        return len(self._live)

    def record(self, session: Session, utterance: str, decision: Decision, caption: Caption | None) -> None:
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO decisions (session_id, at, utterance, show, reason, topic_id, score, detail, caption) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session.id, utcnow().isoformat(), utterance[:500], int(decision.show), decision.reason,
                 decision.topic_id, decision.score, decision.detail,
                 json.dumps(caption.to_public(), ensure_ascii=False) if caption else None))

    def history(self, session_id: str, *, shown_only: bool = True, limit: int = 100) -> list[dict[str, Any]]:
        sql = "SELECT * FROM decisions WHERE session_id = ?" + (" AND show = 1" if shown_only else "")
        rows = self.store.query(sql + " ORDER BY id DESC LIMIT ?", (session_id, limit))
        out = []
        for r in reversed(rows):
            decision = {"at": r["at"], "utterance": r["utterance"], "show": bool(r["show"]), "reason": r["reason"],
                        "topic_id": r["topic_id"], "score": r["score"], "detail": r["detail"]}
            caption = json.loads(r["caption"]) if r["caption"] else None
            out.append({**(caption or {}), "decision": decision} if caption else {"decision": decision})
        return out
