"""The live loop: one utterance of a session in, a typed `LiveResult` out.

Every input (HTTP, WebSocket, MentraOS, Lingzhu, the demo) comes here; the
utterance workflows decide and caption, and this loop records the decision.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, assert_never

from agent.captions.caption import Caption
from agent.engine.values import Candidates, Captioned, Chosen, DigestMade, Fetched, Said, Silenced, Start, Value
from agent.live.gating import Decision
from agent.live.release import DueSweep, ReleaseTimers
from agent.live.sessions import Session, SessionStore, clean_utterance
from agent.metrics import StageTimes, decision_timing, timed

if TYPE_CHECKING:
    from agent.engine.runner import WorkflowEngine
    from agent.live.shared_sessions import RedisSessionState
    from agent.metrics import Metrics

__all__ = ["LiveLoop", "LiveResult"]

TIMER_SLACK_S = 0.05  # the event loop's timers and the wall clock may disagree by this much


@dataclass(frozen=True, kw_only=True)
class LiveResult:
    """What one utterance came to: the gate's decision (None for a partial transcript) and its captions."""

    decision: Decision | None = None
    captions: list[Caption] = field(default_factory=list)
    warning: str | None = None  # said back to the client (e.g. the text was cut to the maximum length)
    # where the decision's time went (`metrics.decision_timing`): a measurement, not part of the result
    stages: StageTimes | None = field(default=None, compare=False, repr=False)

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
        self.timers = ReleaseTimers(self.release)  # one process: a timer per session
        # several instances: the moment kept in Redis, swept by every instance (release.py)
        self.sweep = DueSweep(shared.claim_due, self._find, self.release) if shared is not None else None

    async def hear(self, session: Session, text: Any, *, final: bool = True, now: float | None = None) -> LiveResult:
        """One utterance in, captions out (usually none): the glasses' whole loop.

        On the wall clock (`now` None) a story this line held back goes up by itself when the caption
        before it has been read (`ReleaseTimers`); a caller that keeps its own clock (a replay) asks
        `release(session, before=...)` itself."""
        clean, warning = clean_utterance(text)
        wall = now is None
        now = time.time() if now is None else now
        with decision_timing() as stages:
            async with self._held(session):
                # so a moment may be set for it
                waited = session.gate.held_back is not None or session.gate.sentence_due is not None
                result = await self._hear(session, clean, warning, final, now)
                if wall:
                    await self._due_later(session, was_set=waited)
        if self.metrics is not None and result.decision is not None:
            self.metrics.observe_stages(stages)
        return replace(result, stages=stages)

    async def release(self, session: Session, *, before: float | None = None) -> LiveResult:
        """What the gate decides with no new line, now that its moment came (`SessionGate.due`): the
        sentence heard last, once no more of it came, or the story held back while the last caption was
        read, up now that it has been read. Its decision and caption, or an empty result when nothing fell
        due (before `before`, a caller's own clock's next line: a line said at that moment comes first;
        else by now, give or take the timer's slack)."""
        gate = session.gate

        def fell(at: float | None) -> bool:
            return at is not None and (at < before if before is not None else at <= time.time() + TIMER_SLACK_S)

        async with self._held(session):
            out, tried = LiveResult(), list[float]()
            # the sentence first (the story held back is a candidate of its decision), then that story, if
            # it still waits; each decided at the moment it fell due (a timer fires a little late), and the
            # caption's language follows the newest line
            if gate.sentence_due is not None and fell(gate.sentence_due):
                at, gate.sentence_due = gate.sentence_due, None
                tried.append(at)
                sentence = session.window.newest()  # decided, and recorded, whole
                out = await self._run(Said(session, sentence, at), sentence)
            held = gate.held_due()
            if fell(held) and held is not None:
                at = max([held, *tried])
                tried.append(at)
                late = await self._run(Said(session, session.window.newest(), at, release=True), "")
                out = late if late.captions or not out.captions else out
            if before is None and gate.due() not in tried:
                await self._due_later(session, was_set=True)  # early, moved by another line, or held back anew
            return out

    def forget(self, session_id: str) -> None:
        """The session is erased: nothing of it goes up later (the shared due set is cleared with its
        shared state, `RedisSessionState.forget`)."""
        self.timers.cancel(session_id)

    def start(self) -> None:
        """Sweep the shared due set, when instances share sessions."""
        if self.sweep is not None:
            self.sweep.start()

    async def aclose(self) -> None:
        self.timers.close()
        if self.sweep is not None:
            await self.sweep.aclose()

    async def _due_later(self, session: Session, *, was_set: bool) -> None:
        """On the wall clock, with the session's lock held: when its held-back caption goes up by
        itself, set here (a timer) or, when instances share sessions, in Redis for whichever sweeps.
        `was_set`: a moment may be in Redis already; when none is and none is due, the line costs no
        Redis call (most lines hold nothing back)."""
        due = session.gate.due()
        if self.shared is None:
            self.timers.set(session, due)
        elif due is not None or was_set:
            await self.shared.schedule(session.id, due)

    async def _find(self, session_id: str) -> Session | None:
        return self.sessions.peek(session_id) or await asyncio.to_thread(self.sessions.get, session_id)

    @asynccontextmanager
    async def _held(self, session: Session) -> AsyncIterator[None]:
        """The session's lock, and its shared state loaded and saved around the body when instances share it."""
        with timed("lock"):
            await session.lock.acquire()
        try:
            if self.shared is None:
                yield
                return
            async with self.shared.held(session.id, session.window, session.gate):
                yield
        finally:
            session.lock.release()

    async def _hear(self, session: Session, clean: str, warning: str | None, final: bool, now: float) -> LiveResult:
        """The utterance, with the session's lock held (and its shared state loaded)."""
        went_on = session.window.add(clean, ts=now, partial=not final)
        if not final:
            # partial transcripts change word by word; deciding on them makes captions flicker. They do say
            # whether the sentence waiting for its rest goes on
            session.gate.heard_partial(more=went_on, now=now)
            return LiveResult(warning=warning)
        session.gate.hear(clean)
        joined, more = session.window.open_sentence()
        session.gate.heard_piece(joined=joined, more=more, now=now)
        result = await self._run(Said(session, clean, now), clean)
        return LiveResult(decision=result.decision, captions=result.captions, warning=warning)

    async def _run(self, said: Said, recorded: str) -> LiveResult:
        """The utterance workflows on `said`; each decision recorded against the text `recorded`."""
        session = said.session
        captions: list[Caption] = []
        decision: Decision | None = None
        for spec in self.engine.for_event("utterance"):
            record = await self.engine.run(spec.name, trigger="event:utterance", value=said)
            d, made = _outcome(record.result, went_through=record.status == "ok")
            if made is not None:
                captions.append(made)
                session.last_caption = made
            if d is not None:
                decision = d
                if self.metrics is not None:
                    self.metrics.decisions.inc(d.reason)
                with timed("store_write"):
                    await asyncio.to_thread(self.sessions.record, session, recorded, d, made)
        return LiveResult(decision=decision, captions=captions)


def _outcome(end: Value | None, *, went_through: bool) -> tuple[Decision | None, Caption | None]:
    """What an utterance run came to: the gate's decision, if it was asked, and the caption, if one
    was made and the run went through (a push that failed shows nothing)."""
    match end:
        case Captioned():
            return end.decision, end.caption if went_through else None
        case Chosen() | Silenced():
            return end.decision, None
        case Start() | Said() | Candidates() | Fetched() | DigestMade() | None:
            return None, None
        case _:
            assert_never(end)
