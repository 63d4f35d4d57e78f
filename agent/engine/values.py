"""The values that flow between workflow steps, one type per stage.

A step takes the value the step before it made and returns the next one, so an
utterance can be followed to the display by reading types:

    Said ─rank→ Candidates ─gate→ Chosen ─caption→ Captioned ─(summarize, push)→ Captioned
    Start ─fetch→ Fetched            Start | Fetched ─digest→ DigestMade ─push→ DigestMade

The loader checks that each step accepts what the step before gives, before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.answers.digest import Digest
from agent.live.gating import Decision
from agent.live.sessions import Session

from ..captions.caption import Caption
from ..ranking import Ranked

__all__ = ["Candidates", "Captioned", "Chosen", "DigestMade", "Fetched", "Said", "Silenced", "Start", "Value"]


@dataclass(frozen=True)
class Start:
    """What a manual, interval or cron run starts from: nothing but the trigger."""


@dataclass(frozen=True)
class Said:
    """What an utterance event starts from: a final utterance of a session.

    (A conversation window keeps its own timed lines: `ranking.window.Utterance`.)
    """

    session: Session
    text: str
    now: float = 0.0
    # no line was said: the story held back while the last caption was read asks again, at the moment
    # that caption has been read (`SessionGate.due`); nothing is ranked, the gate decides on it alone
    release: bool = False


@dataclass(frozen=True)
class Candidates:
    utterance: Said
    ranked: list[Ranked] = field(default_factory=list)


@dataclass(frozen=True)
class Chosen:
    """The gate said show: its decision and the candidate it chose."""

    utterance: Said
    decision: Decision
    chosen: Ranked


@dataclass(frozen=True)
class Captioned:
    utterance: Said
    decision: Decision
    chosen: Ranked
    caption: Caption


@dataclass(frozen=True)
class Silenced:
    """What a live run ends with when the gate stays silent: the decision, and no caption."""

    utterance: Said
    decision: Decision


@dataclass(frozen=True)
class Fetched:
    statuses: dict[str, str]  # source → "ok" or its error kind


@dataclass(frozen=True)
class DigestMade:
    digest: Digest
    text: str  # rendered in the step's format


Value = Start | Said | Candidates | Chosen | Captioned | Silenced | Fetched | DigestMade
"""Every value a step takes or makes, so what a run ends with (`RunRecord.result`) is one of these."""

