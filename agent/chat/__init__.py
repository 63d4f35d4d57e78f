"""Answers about what is trending, grounded in the current lists: for the chat API and the Lingzhu agent.

A question is read for its intent (`intents`), the facts are gathered from the running
service (`facts`, `hottest`, `search`), and a template words them (`answers`). With an
LLM configured it may reword the answer (`wording`), never change its facts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, assert_never

from ..models import Topic, utcnow
from .answers import (
    Style,
    render_fresh,
    render_hottest,
    render_nothing,
    render_platform,
    render_search,
    render_unresolved,
)
from .context import Turn, resolve_follow_up
from .facts import Fact, gather
from .hottest import hottest
from .intents import FollowUp, Fresh, Hottest, Intent, PlatformList, Search, Story, detect_intent, question_lang
from .search import find_story, relevant, title_matches
from .story import StoryAnswer, story_answer
from .wording import llm_wording

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["Answer", "Style", "StoryAnswer", "Turn", "answer_question", "detect_intent", "hottest", "question_lang",
           "story_answer"]


@dataclass(frozen=True, kw_only=True)
class Answer:
    text: str
    topics: list[Topic]
    lang: Literal["zh", "en"]
    intent: str


async def answer_question(runtime: Runtime, question: str, *, style: Style = "chat", limit: int = 3,
                          history: Sequence[Turn] = ()) -> Answer:
    """Answer one question; `history` holds the earlier turns, oldest first."""
    lang = question_lang(question)
    count = 2 if style == "glasses" else limit
    intent = detect_intent(question, has_history=bool(history))
    text, facts = await _compose(runtime, intent, question, lang, style, count, history)
    if facts and runtime.settings.llm_base_url:
        worded = await llm_wording(runtime, question, text, style, lang)
        if worded:
            text = worded
    return Answer(text=text, topics=[f.topic for f in facts], lang=lang, intent=type(intent).__name__)


async def _compose(runtime: Runtime, intent: Intent, question: str, lang: str, style: Style, count: int,
                   history: Sequence[Turn]) -> tuple[str, list[Fact]]:
    current = [s.topic for s in runtime.stored.values()]
    if isinstance(intent, PlatformList):
        own = sorted((t for t in current if t.source == intent.source),
                     key=lambda t: (t.rank if t.rank is not None else 10**6, -(t.heat or 0)))
        shown = own[:1] if intent.top_only else own[:count if style == "glasses" else max(count, 5)]
        facts = [await gather(runtime, t, only_source=intent.source) for t in shown]
        return render_platform(intent.source, facts, lang, style, top_only=intent.top_only), facts
    if isinstance(intent, Hottest):
        stories = hottest(current, runtime.clusters, limit=count)
        facts = [await gather(runtime, s.lead, members=s.members) for s in stories]
        return render_hottest(facts, lang, style), facts
    if isinstance(intent, Fresh):
        fresh = _fresh_ids(runtime, intent.hours)
        sources = (intent.source,) if intent.source else None
        stories = [s for s in hottest(current, runtime.clusters, limit=len(current) or 1, sources=sources)
                   if any(m.id in fresh for m in s.members)][:count]
        facts = [await gather(runtime, s.lead, members=s.members) for s in stories]
        return render_fresh(facts, lang, style, hours=intent.hours, source=intent.source), facts
    if isinstance(intent, Story):
        return await _story(runtime, intent.subject, lang, style)
    if isinstance(intent, FollowUp):
        topic = resolve_follow_up(history, current, position=intent.position, words=intent.words)
        if topic is not None:
            return await _tell(runtime, topic, lang, style, asked=True)
        if intent.words:
            return await _story(runtime, intent.words, lang, style)
        return render_unresolved(lang), []
    if isinstance(intent, Search):
        topics = await _search(runtime, intent, lang, count)
        facts = [await gather(runtime, t) for t in topics]
        return render_search(facts, lang, style), facts
    assert_never(intent)


async def _story(runtime: Runtime, subject: str, lang: str, style: Style) -> tuple[str, list[Fact]]:
    topic = await find_story(runtime, subject)
    if topic is None:
        return render_nothing(lang, subject[:80]), []
    return await _tell(runtime, topic, lang, style)


async def _tell(runtime: Runtime, topic: Topic, lang: str, style: Style,
                asked: bool = False) -> tuple[str, list[Fact]]:
    """A story question answered with the whole story: every platform with its rank, the trend."""
    story = runtime.clusters.get(topic.id)
    history = [p.heat for p in await asyncio.to_thread(runtime.store.history, topic.id) if p.heat is not None]
    answer = story_answer(topic, story, stored=runtime.stored, history=history, asked=asked)
    fact = await gather(runtime, topic)
    return answer.text(lang, style), [fact]


async def _search(runtime: Runtime, intent: Search, lang: str, count: int) -> list[Topic]:
    current = [s.topic for s in runtime.stored.values()
               if not intent.sources or s.topic.source in intent.sources]
    # titles that hold the asked-about words first, hottest of them first; then the ranker's picks
    literal = {t.id for t in title_matches(intent.subject, current)} if intent.subject else set()
    picked = [s.lead for s in hottest([t for t in current if t.id in literal], runtime.clusters, limit=count)]
    stories = {runtime.story_key(t.id) for t in picked}
    picked += [t for t in await relevant(runtime, intent.query, top_k=count * 4)
               if (not intent.sources or t.source in intent.sources) and runtime.story_key(t.id) not in stories]
    if len(picked) < count and (not picked or intent.sources):
        # nothing (or too little) matches: what is hottest in the asker's language, or in the category asked
        if intent.sources:
            pool = [s.topic for s in runtime.stored.values() if s.topic.source in intent.sources]
        else:
            pool = [s.topic for s in runtime.stored.values() if (s.topic.lang == "zh") == (lang == "zh")]
        have = {p.id for p in picked}
        picked += [s.lead for s in hottest(pool, runtime.clusters, limit=count * 2) if s.lead.id not in have]
    return picked[:count]


def _fresh_ids(runtime: Runtime, hours: float, *, now: datetime | None = None) -> set[str]:
    """Topics first seen, or seen rising, within the last `hours`."""
    cut = (now or utcnow()) - timedelta(hours=hours)
    out = set()
    for s in runtime.stored.values():
        if datetime.fromisoformat(s.first_seen) >= cut or (
                (s.velocity or 0) > 0 and datetime.fromisoformat(s.last_seen) >= cut):
            out.add(s.topic.id)
    return out
