"""What the glasses would show for one line of conversation, and why: the live loop's own rank, gate and
caption steps, run on a throwaway session so that nothing is shown, stored or remembered.

The line is the whole conversation (a fresh session has heard nothing else), the ranking parameters
are those of the shipped `live_captions` workflow, and the gate is a new session's gate at the asked
frequency. So the answer is the caption a wearer would see if this were the first thing said.
"""

from __future__ import annotations

import time
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.answers.chat.deps import ChatDeps
from agent.answers.chat.facts import Fact, gather
from agent.captions.caption import Caption
from agent.engine.steps import RankParams
from agent.live.gating import Frequency, GatePolicy, Reason, SessionGate
from agent.live.sessions import clean_utterance
from agent.ranking import Ranked, RankQuery
from agent.ranking.lexical import tokenize
from agent.ranking.window import ConversationWindow
from agent.text import is_han

if TYPE_CHECKING:
    from agent.engine.runner import WorkflowEngine

__all__ = ["Glance", "GlanceDeps", "glance", "utterance_rank_params"]


@dataclass(frozen=True, kw_only=True)
class Glance:
    """One line's outcome: a caption, or silence, with the evidence for either."""

    show: bool
    reason: Reason  # the gate's: "shown", "no_candidate" (nothing passed the relevance gate), "not_enough_speech"
    caption: Caption | None
    match: Ranked | None  # the story shown; when silent, the nearest story (below the relevance gate)
    fact: Fact | None  # where `match` is listed, its heat and trend
    shared_words: tuple[str, ...]  # words of the line found in the match's title


class GlanceDeps(ChatDeps, Protocol):
    """The chat's parts, and the live loop's caption wording."""

    def compose_caption(self, ranked: Ranked, *, profile: str) -> Caption: ...


def utterance_rank_params(engine: WorkflowEngine) -> RankParams:
    """The rank step's parameters in the workflow that captions utterances (the defaults without one)."""
    for spec in engine.for_event("utterance"):
        for step in spec.steps:
            if step.use == "rank" and isinstance(step.params, RankParams):
                return step.params
    return RankParams()


def _shared_words(line: str, title: str) -> tuple[str, ...]:
    """Words of the line found in the title: whole Latin words, and the longest runs of Han characters
    (the index's CJK bigrams, "春晚 晚机 机器…", joined back into "春晚机器人")."""
    line, title = unicodedata.normalize("NFKC", line).casefold(), unicodedata.normalize("NFKC", title).casefold()
    have = set(tokenize(title))
    words = [w for w in tokenize(line) if w.isascii() and w in have]
    i = 0
    while i < len(line):
        j = i
        while j < len(line) and is_han(line[j]) and line[i:j + 1] in title:
            j += 1
        if j - i >= 2:
            words.append(line[i:j])
        i = max(j, i + 1)
    return tuple(dict.fromkeys(words))[:8]


async def glance(deps: GlanceDeps, line: str, *, rank: RankParams, profile: str, frequency: Frequency = "medium",
                 now: float | None = None) -> Glance:
    """The caption `line` would bring up on a fresh session's glasses, or why they would stay quiet;
    `rank`: the live loop's rank parameters (`utterance_rank_params`).

    Raises `InputError` for a line that is empty once cleaned (the live loop's own check).
    """
    text, _ = clean_utterance(line)
    now = time.time() if now is None else now
    gate = SessionGate(policy=GatePolicy().with_frequency(frequency))
    gate.hear(text)
    plan = gate.plan(now)
    if plan.quiet is not None:
        return Glance(show=False, reason=plan.quiet.reason, caption=None, match=None, fact=None, shared_words=())
    window = ConversationWindow()
    window.add(text, ts=now)
    ranked = await deps.index.rank(rank.query(window, gate_offset=gate.policy.relevance_offset, latest=text))
    decision, chosen = gate.choose(ranked, deps.index.story_key, now, again=lambda _id, _score: None)
    if chosen is not None:
        caption = deps.compose_caption(chosen, profile=profile)
        return Glance(show=True, reason=decision.reason, caption=caption, match=chosen,
                      fact=await gather(deps, chosen.topic), shared_words=_shared_words(text, chosen.topic.title))
    # silent: name the nearest story all the same, so a reader sees how far the line was from a caption
    nearest = await deps.index.rank(RankQuery(text=window, top_k=1, prior=rank.prior, mmr=False))
    match = nearest[0] if nearest else None
    return Glance(show=False, reason=decision.reason, caption=None, match=match,
                  fact=await gather(deps, match.topic) if match else None,
                  shared_words=_shared_words(text, match.topic.title) if match else ())
