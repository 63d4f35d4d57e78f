"""The live loop: one utterance of a session in, a typed `LiveResult` out.

Every input (HTTP, WebSocket, MentraOS, Lingzhu, the demo) comes here; the
utterance workflows decide and caption, and this loop records the decision.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.captions.caption import Caption
from agent.engine.values import Captioned, Chosen, Said, Silenced
from agent.live.gating import Decision
from agent.live.sessions import Session, SessionStore, clean_utterance

if TYPE_CHECKING:
    from agent.engine.runner import WorkflowEngine
    from agent.live.shared_sessions import RedisSessionState
    from agent.metrics import Metrics

__all__ = ["LiveLoop", "LiveResult"]


@dataclass(frozen=True, kw_only=True)
class LiveResult:
    """What one utterance came to: the gate's decision (None for a partial transcript) and its captions."""

    decision: Decision | None = None
    captions: list[Caption] = field(default_factory=list)
    warning: str | None = None  # said back to the client (e.g. the text was cut to the maximum length)

    @property
    def caption(self) -> Caption | None:
        """The caption shown for this utterance, if any (the last, when several workflows captioned)."""
        return self.captions[-1] if self.captions else None


class LiveLoop:
    def __init__(self, engine: WorkflowEngine, sessions: SessionStore, *, metrics: Metrics | None = None,
                 shared: RedisSessionState | None = None) -> None:
        self.engine = engine
        self.sessions = sessions
        self.metrics = metrics
        self.shared = shared  # set when instances share sessions: their live state is loaded and saved per utterance

    async def hear(self, session: Session, text: Any, *, final: bool = True, now: float | None = None) -> LiveResult:
        """One utterance in, captions out (usually none): the glasses' whole loop."""
        clean, warning = clean_utterance(text)
        now = time.time() if now is None else now
        async with session.lock:
            if self.shared is None:
                return await self._hear(session, clean, warning, final, now)
            async with self.shared.held(session.id, session.window, session.gate):
                return await self._hear(session, clean, warning, final, now)

    async def _hear(self, session: Session, clean: str, warning: str | None, final: bool, now: float) -> LiveResult:
        """The utterance, with the session's lock held (and its shared state loaded)."""
        session.window.add(clean, ts=now)
        if not final:
            # partial transcripts change word by word; deciding on them makes captions flicker
            return LiveResult(warning=warning)
        session.gate.hear(clean)
        captions: list[Caption] = []
        decision: Decision | None = None
        for spec in self.engine.for_event("utterance"):
            record = await self.engine.run(spec.name, trigger="event:utterance",
                                           value=Said(session, clean, now))
            end = record.result
            d = end.decision if isinstance(end, Captioned | Silenced | Chosen) else None
            made = end.caption if isinstance(end, Captioned) and record.status == "ok" else None
            if made is not None:
                captions.append(made)
                session.last_caption = made
            if d is not None:
                decision = d
                if self.metrics is not None:
                    self.metrics.decisions.inc(d.reason)
                await asyncio.to_thread(self.sessions.record, session, clean, d, made)
        return LiveResult(decision=decision, captions=captions, warning=warning)
