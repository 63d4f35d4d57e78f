"""Whether to show a caption now: the wearer's attention is the scarce resource.

Timing rules only, after Mentra Merge and Convoscope (../GLASSES.md): decide only
after enough new speech; a caption a piece of a sentence would put up (a recogniser cut it at a pause)
waits for the rest of it, `sentence_wait_s`; a display lock while a caption is on screen, which yields to
a different story with strong evidence once the caption has been up long enough to
read (its headline's own reading time, `reading`); a meme said while the wearer is still reading
is held back and shown once the caption before it has been read, and one too weak to displace
the caption is held back until the caption has been read three times or its time on screen ends (on
the next line, or by itself at that moment: `due`), unless a newer line brings its own; a line that goes on
about the caption on screen (its first candidate is that caption's story) puts nothing else up and holds
nothing back; per-session cooldown
between captions; the same topic is not repeated within the dedupe window. Whether a topic is relevant at all is
decided once, by the ranker's relevance gate, before candidates reach this gate
(the frequency setting moves that bar through `relevance_offset`). Every decision
says why, so it can be recorded and inspected.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from agent.captions.caption import LINE_S

if TYPE_CHECKING:
    from agent.ranking import Ranked

__all__ = ["FREQUENCIES", "Candidate", "Decision", "GatePolicy", "Plan", "SessionGate"]

Frequency = Literal["low", "medium", "high"]
Holding = Literal["same", "stronger", "reading", "none"]  # what keeps a story off the display
Reason = Literal[
    "shown", "replaced", "no_candidate", "not_enough_speech", "display_locked",
    "cooldown", "duplicate",
]


#: The least time a caption is up before a new story may replace it: long enough to read its
#: headline, the title and the meta line under it, which every display profile shows first
#: (agent/captions/profiles.py). People read about 200 words a minute on a HUD and a comfortable
#: line holds 10-12 CJK or 30-35 Latin characters, about 6 words (../GLASSES.md): 1.8 s a line.
#: The headlines of captions on real hot lists run 1.5-3.1 such lines (a short title and its
#: platforms and ranks, up to a two-part question), 2.6-5.6 s; 6 s lets the longest be read.
#: Replacing sooner puts up a caption over one the wearer has not read (docs/relevance.md, "The
#: display yields to a new meme", measures 3, 6 and 9 s).
READ_S = 6.0
#: How long a caption stays up unless a new story displaces it.
DISPLAY_LOCK_S = 10.0
#: How long a recogniser's piece that would put a caption up while its sentence may go on waits for the rest
#: of it. Endpointers cut at a short pause (half a second of silence by default in ZEGOCLOUD's ASR
#: segmentation and Microsoft's speech recogniser's CompleteTimeout) and stream the next words as partials
#: as soon as the speaker goes on; each partial restarts the wait
#: (`SessionGate.heard_partial`), so it only spans the pause. Every tenth of a second is a tenth the
#: caption is late, and at a table's pace a caption late holds the next meme back: chosen from 0.6 and 1.0 s
#: with each festival night left out (the shorter on a tie), docs/relevance.md, "A sentence is decided whole".
SENTENCE_WAIT_S = 0.6


@dataclass(frozen=True, kw_only=True)
class GatePolicy:
    relevance_offset: float = 0.0   # added to the ranker's relevance gate (frequency: stricter or looser)
    min_new_chars: int = 8          # new speech (characters) needed before deciding again
    display_lock_s: float = DISPLAY_LOCK_S  # a caption stays this long unless a new story displaces it
    cooldown_s: float = 4.0         # quiet time between two captions
    dedupe_window_s: float = 300.0  # the same topic is not shown again within this window
    # "strong evidence": a new story replaces the caption when its score comes within this much of
    # (or beats) the score that put the caption up; a weaker one waits for the caption's time on
    # screen instead of being dropped. Chosen on each festival night with the other left out, over
    # every replay of it (scripts/eval/festival_replays.py: hits less small talk, greetings and
    # flicker): -0.1 on both once a line's own meaning kept small talk off the gate (0 before it;
    # docs/relevance.md, "The clock" and "A weaker meme waits three readings").
    replace_margin: float = -0.1
    min_read_s: float = READ_S      # nothing replaces a caption before it has been up this long
    # how long a story held back may wait: one that would have replaced the caption but for its reading
    # time goes up once the caption is read (at most `min_read_s`), one too weak to displace it once the
    # caption's time on screen ends (at most `display_lock_s`). One reading time dropped the weaker meme
    # said 3 s after a caption (7 s of screen left) whenever the table said nothing newer
    # (docs/relevance.md, "The clock", has the figures).
    held_back_s: float = DISPLAY_LOCK_S
    # ... and a story too weak to displace the caption waits for it at most this many of the caption's
    # reading times (`reading`), never past its time on screen: a short headline is taken in long before
    # its 10 s are up, and at a table's pace the meme said next took the waiting one's place (an English
    # line said 6 s after a 9-character caption; on a night of two thin lists, the memes said 6 s after
    # one). Chosen with each festival night left out (docs/relevance.md, "A weaker meme waits three
    # readings").
    weaker_reads: float = 3.0
    # in a session whose recogniser cuts sentences into pieces, a caption a piece would put up while its
    # sentence may go on waits this long for the rest, and the sentence is decided whole (0: never). The
    # first half of a line often meets an entry its whole does not ("说起来二舅今年咋没" of a line about an
    # uncle who stayed home meets the uncle of a meme): docs/relevance.md, "A sentence is decided whole"
    sentence_wait_s: float = SENTENCE_WAIT_S

    def with_frequency(self, frequency: Frequency) -> GatePolicy:
        """Scale the relevance bar and the cooldown by the user's low/medium/high setting."""
        scale = FREQUENCIES[frequency]
        return replace(self, relevance_offset=self.relevance_offset + scale["relevance_delta"],
                       cooldown_s=self.cooldown_s * scale["cooldown"])


FREQUENCIES: dict[str, dict[str, float]] = {
    "low": {"relevance_delta": 0.1, "cooldown": 3.0},
    "medium": {"relevance_delta": 0.0, "cooldown": 1.0},
    "high": {"relevance_delta": -0.08, "cooldown": 0.25},
}


@dataclass(frozen=True, kw_only=True)
class Candidate:
    topic_id: str
    score: float
    key: str = ""  # what "the same topic" means for dedupe: its cross-platform cluster

    @property
    def story(self) -> str:
        return self.key or self.topic_id


@dataclass(frozen=True, kw_only=True)
class Decision:
    show: bool
    reason: Reason
    topic_id: str | None = None
    score: float | None = None
    detail: str = ""
    at: float = 0.0
    replaced: str | None = None  # "replaced": the caption it took the display from, as its story key
    replaced_topic: str | None = None  # ... and its topic id
    # a caption of a story held back from an earlier line while the caption before it was read: how long it
    # waited (None for a caption of the line's own), so a record tells a late caption from the line's own
    held_s: float | None = None

    def public(self) -> dict[str, object]:
        out: dict[str, object] = {"show": self.show, "reason": self.reason, "topic_id": self.topic_id,
                                  "score": self.score, "detail": self.detail, "at": self.at}
        if self.replaced is not None:
            out["replaced"] = {"story": self.replaced, "topic_id": self.replaced_topic}
        if self.held_s is not None:
            out["held_s"] = round(self.held_s, 3)
        return out


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What the gate says of a line before anything is ranked (`SessionGate.plan`): a quiet decision no
    score could change, else the stories it would not show again (ranking leaves them out too, but for the
    one `showing`)."""

    quiet: Decision | None
    recent: frozenset[str]
    # the story of the caption still on screen: ranked with the rest (not left out as recent), so the gate
    # sees when the line is about it, and no other story takes its place or waits for it on that line
    showing: str | None = None


@dataclass
class SessionGate:
    """Per-session gate state. Not thread-safe: one session is driven by one task."""

    policy: GatePolicy = field(default_factory=GatePolicy)
    chars_since_decision: int = 0
    on_screen: Candidate | None = None
    on_screen_until: float = 0.0
    last_shown_at: float = float("-inf")
    shown: deque[tuple[float, str]] = field(default_factory=lambda: deque(maxlen=64))
    # the story kept from the display only by the reading time of the caption on screen, and when
    held_back: tuple[Candidate, float] | None = None
    # how long the caption on screen takes to read: its headline's own time once it is composed
    # (`reading`), the policy's `min_read_s` until then and at most
    read_s: float = READ_S
    # the session's recogniser cuts sentences into pieces (one was joined): its pieces wait for the rest
    cut: bool = False
    # until when the piece just heard may still be continued (`heard_piece`), read by its own decision
    open_until: float | None = None
    # when the sentence heard last is decided whole if no more of it came by then: set while the caption a
    # piece of it would have put up waits for the rest (`_unfinished`)
    sentence_due: float | None = None

    def hear(self, text: str) -> None:
        self.chars_since_decision += len("".join(text.split()))

    def heard_piece(self, *, joined: bool, more: bool, now: float) -> None:
        """The window's newest sentence after a final utterance (`ConversationWindow.open_sentence`): whether
        it was `joined` from pieces, and whether `more` of it may follow. In a session whose recogniser cuts
        sentences, a caption of one that may go on waits `sentence_wait_s` for the rest (`_unfinished`)."""
        self.cut = self.cut or joined
        wait = self.policy.sentence_wait_s
        self.open_until = now + wait if self.cut and more and wait > 0 else None

    def heard_partial(self, *, more: bool, now: float) -> None:
        """A partial transcript: a sentence waiting for its rest (`sentence_due`) that it goes on with (`more`)
        waits from now; one it does not go on with (past the join's bounds, or later) is decided now."""
        if self.sentence_due is not None:
            self.sentence_due = now + self.policy.sentence_wait_s if more else min(self.sentence_due, now)

    def waiting(self, now: float) -> Candidate | None:
        """The story held back while the caption on screen was read, while it may still go up."""
        if self.held_back is None:
            return None
        candidate, at = self.held_back
        if now - at > self.policy.held_back_s or candidate.story in self.recently_shown(now):
            self.held_back = None
            return None
        return candidate

    def due(self) -> float | None:
        """When the gate decides with no new line: the sentence heard last once its wait for the rest is over
        (`sentence_due`), or the story held back (`held_due`), whichever comes first; None when neither waits."""
        return min((at for at in (self.sentence_due, self.held_due()) if at is not None), default=None)

    def held_due(self) -> float | None:
        """When the story held back may go up by itself (`choose(..., release=True)`): once the caption on
        screen has been read, or, for a story too weak to displace it, once its time on screen ends.
        None when nothing waits, or when that moment is past the story's wait (`held_back_s`)."""
        if self.held_back is None:
            return None
        back, on = self.held_back[0], self.on_screen
        # a story strong enough to replace the caption goes up once it is read; another once the
        # caption has been read `weaker_reads` times or its time on screen ends, whichever comes first
        strong = on is None or self._strong(on, back)
        at = self.last_shown_at + self.read_s if strong else max(self._yields_at(), self.last_shown_at + self.read_s)
        return at if self.waiting(at) is not None else None

    def reading(self, seconds: float, *, on_screen_s: float | None = None) -> None:
        """The caption just put up takes `seconds` to read (`Caption.read_s`): a short headline frees the
        display sooner, so at a table's pace (a line every 2-4 s) the meme said next is not held back
        a whole `min_read_s`. Never less than one line's time, never more than `min_read_s`.
        `on_screen_s`: how long the display keeps it (the caption's TTL, which every display honours):
        the gate's time on screen ends with it, so a meme waiting for it goes up as it fades."""
        self.read_s = min(self.policy.min_read_s, max(LINE_S, seconds))
        if on_screen_s is not None:
            self.on_screen_until = self.last_shown_at + max(self.read_s, on_screen_s)

    def recently_shown(self, now: float) -> set[str]:
        """Stories (cluster keys, else topic ids) shown within the dedupe window."""
        return {key for at, key in self.shown if now - at < self.policy.dedupe_window_s}

    def blocked(self, now: float) -> Decision | None:
        """A quiet decision that no score could change, or None when candidates are worth ranking.

        Asked before ranking, so a session that cannot show anything right now costs no
        model call: under load that is most of the CPU a busy table would otherwise spend.
        """
        p = self.policy
        if self.chars_since_decision < p.min_new_chars:
            return Decision(show=False, reason="not_enough_speech", at=now,
                            detail=f"{self.chars_since_decision}/{p.min_new_chars} new characters")
        if self.showing(now) is None and now - self.last_shown_at < p.cooldown_s:
            self.chars_since_decision = 0
            return Decision(show=False, reason="cooldown", at=now,
                            detail=f"{p.cooldown_s - (now - self.last_shown_at):.1f}s of cooldown left")
        return None

    def showing(self, now: float) -> Candidate | None:
        """The caption still on screen at `now`, if any."""
        return self.on_screen if self.on_screen is not None and now < self.on_screen_until else None

    def plan(self, now: float) -> Plan:
        """The first of the two questions a line asks, before ranking: whether anything could show."""
        on = self.showing(now)
        return Plan(quiet=self.blocked(now), recent=frozenset(self.recently_shown(now)),
                    showing=on.story if on is not None else None)

    def choose(self, ranked: Sequence[Ranked], story_key: Callable[[str], str], now: float, *,
               again: Callable[[str, float], Ranked | None], release: bool = False) -> tuple[Decision, Ranked | None]:
        """The second, after ranking (the line's `plan` let it through, or `release`): the decision on the
        ranker's answer, each topic keyed by its story, and the ranked item it shows (None when quiet).
        The story held back is a candidate after the line's own, read again as the index holds it now
        (`again`; None: no longer on the lists, so it is let go)."""
        pool = list(ranked)
        back = self.waiting(now)
        if back is not None and all(r.topic.id != back.topic_id for r in pool):
            found = again(back.topic_id, back.score)
            if found is None:
                self.held_back = None
            else:
                pool.append(found)
        decision = self._pick([Candidate(topic_id=r.topic.id, score=r.score, key=story_key(r.topic.id))
                               for r in ranked], now, release=release)
        shown = next((r for r in pool if r.topic.id == decision.topic_id), None) if decision.show else None
        return decision, shown

    def decide(self, candidates: list[Candidate], now: float, *, release: bool = False) -> Decision:
        """`plan` and then the pick among candidates in one call (the gate's own tests): at most one to
        show, given scores best first (all already past the relevance gate)."""
        if not release:
            early = self.blocked(now)
            if early is not None:
                return early
        return self._pick(candidates, now, release=release)

    def _pick(self, candidates: list[Candidate], now: float, *, release: bool) -> Decision:
        """At most one candidate to show. The story `waiting` is one more, after them: the line just said
        comes first.

        `release`: no line was said; the story held back asks again at its `due` time, so the wearer
        sees it when the caption before it has been read, not whenever someone next speaks (the
        last meme of a conversation would never go up). The speech said meanwhile is left for the
        next line's decision."""
        p = self.policy
        chars, open_until = self.chars_since_decision, None
        if not release:
            # a piece that may go on is decided now unless it would put a caption up (`_unfinished`)
            self.chars_since_decision, open_until = 0, self.open_until
            self.open_until = self.sentence_due = None
        said = candidates[0] if candidates and not release else None  # what the line is most about
        back = self.waiting(now)
        if back is not None and all(c.topic_id != back.topic_id for c in candidates):
            candidates = [*candidates, back]
        if not candidates:
            return Decision(show=False, reason="no_candidate", at=now)
        on_screen = self.showing(now)
        if said is not None and on_screen is not None and said.story == on_screen.story:
            # the line goes on about the caption on screen: what else it matches is not what was said (a
            # second story of the same meme, a word in passing), so nothing replaces the caption or waits
            # for it on this line
            return Decision(show=False, reason="display_locked", topic_id=said.topic_id, score=said.score, at=now,
                            detail=f"the line goes on about {on_screen.topic_id}, on screen for "
                                   f"{self.on_screen_until - now:.1f}s more")
        recent = self.recently_shown(now)
        fresh = [c for c in candidates if c.story not in recent]
        best = candidates[0]
        if not fresh:
            return Decision(show=False, reason="duplicate", topic_id=best.topic_id, score=best.score, at=now,
                            detail=f"shown within the last {p.dedupe_window_s:g}s")
        top = fresh[0]
        held_s = self._held_s(top, now)
        waited = "" if held_s is None else f"; held back {held_s:.1f}s while the caption before it was read"
        if on_screen is not None:
            held, kind = self._holds(on_screen, top, now)
            if held:
                # a different story waits for the display: it would have replaced the caption but for its
                # reading time, or goes up once the stronger caption's time on screen ends
                if kind != "same" and held_s is None:
                    self.held_back = (top, now)
                return Decision(show=False, reason="display_locked", topic_id=top.topic_id, score=top.score, at=now,
                                detail=held)
            if (wait := self._unfinished(top, now, open_until, chars)) is not None:
                return wait
            # the record names the caption replaced, read before `_show` moves on
            detail = f"replaced {on_screen.topic_id} (story {on_screen.story}) after {now - self.last_shown_at:.1f}s"
            self._show(top, now)
            return Decision(show=True, reason="replaced", topic_id=top.topic_id, score=top.score, at=now,
                            detail=detail + waited, replaced=on_screen.story, replaced_topic=on_screen.topic_id,
                            held_s=held_s)
        if now - self.last_shown_at < p.cooldown_s:
            return Decision(show=False, reason="cooldown", topic_id=top.topic_id, score=top.score, at=now,
                            detail=f"{p.cooldown_s - (now - self.last_shown_at):.1f}s of cooldown left")
        if (wait := self._unfinished(top, now, open_until, chars)) is not None:
            return wait
        self._show(top, now)
        return Decision(show=True, reason="shown", topic_id=top.topic_id, score=top.score, at=now,
                        detail=waited.lstrip("; "), held_s=held_s)

    def _unfinished(self, top: Candidate, now: float, open_until: float | None, chars: int) -> Decision | None:
        """A caption a piece of a sentence would put up waits for the rest of the sentence (`heard_piece`): the
        whole is decided at `open_until` unless more of it comes first, with the speech heard so far. A piece
        whose decision is quiet (nothing to show, the display held) needs no wait: it stands."""
        if open_until is None or now >= open_until:
            return None
        self.sentence_due, self.chars_since_decision = open_until, chars
        return Decision(show=False, reason="not_enough_speech", topic_id=top.topic_id, score=top.score, at=now,
                        detail=f"the sentence may go on: decided whole in {open_until - now:.1f}s")

    def _held_s(self, top: Candidate, now: float) -> float | None:
        """How long `top` has waited, when it is the story held back from an earlier line (None: it is not)."""
        if self.held_back is None or self.held_back[0].topic_id != top.topic_id:
            return None
        return now - self.held_back[1]

    def _holds(self, on_screen: Candidate, top: Candidate, now: float) -> tuple[str, Holding]:
        """Why the caption on screen keeps the display from `top` ("" when `top` replaces it: a
        different story, with strong evidence, `replace_margin` over the caption's own score, once
        the caption has been read), and what holds it: the same story, a stronger caption's time on
        screen, or the caption's reading time alone."""
        left = self.on_screen_until - now
        up = now - self.last_shown_at  # the caption on screen is the one shown last
        if top.story == on_screen.story:
            return f"{on_screen.topic_id} (the same story) on screen for {left:.1f}s more", "same"
        yields = self._yields_at()
        if not self._strong(on_screen, top) and now < yields - 1e-6:
            return f"{on_screen.topic_id} on screen for {min(left, yields - now):.1f}s more", "stronger"
        if up < self.read_s - 1e-6:  # `due` is shown-at + read_s: the sum's rounding is not "unread"
            return f"{on_screen.topic_id} up {up:.1f}s of the {self.read_s:.1f}s it takes to read", "reading"
        return "", "none"

    def _yields_at(self) -> float:
        """When the caption on screen gives way to a weaker story (`GatePolicy.weaker_reads`)."""
        return min(self.on_screen_until, self.last_shown_at + self.policy.weaker_reads * self.read_s)

    def _strong(self, on_screen: Candidate, top: Candidate) -> bool:
        """Whether `top` has the evidence to replace the caption on screen once it is read."""
        return top.score >= on_screen.score + self.policy.replace_margin

    def _show(self, candidate: Candidate, now: float) -> None:
        self.held_back = None
        self.on_screen = candidate
        self.on_screen_until = now + self.policy.display_lock_s
        self.last_shown_at = now
        self.read_s = self.policy.min_read_s
        self.shown.append((now, candidate.story))

    def clear(self) -> None:
        self.on_screen = None
        self.on_screen_until = 0.0
