"""Answers about what is trending, grounded in the current lists: for the chat API and the Lingzhu agent.

A question is read for its intent (`intents`), the facts are gathered from the running
service (`facts`, `hottest`, `search`), and a template words them (`answers`). With an
LLM configured it may reword the answer (`wording`), never change its facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, assert_never

from agent.answers.chat.answers import (
    Style,
    render_fresh,
    render_hottest,
    render_no_lists,
    render_no_place,
    render_nothing,
    render_platform,
    render_search,
    render_small_talk,
    render_unresolved,
)
from agent.answers.chat.context import Turn, resolve_follow_up
from agent.answers.chat.facts import Fact, gather
from agent.answers.chat.hottest import hottest
from agent.answers.chat.intents import (
    FollowUp,
    Fresh,
    Hottest,
    Intent,
    PlatformList,
    Search,
    SmallTalk,
    Story,
    StoryAt,
    detect_intent,
    question_lang,
)
from agent.answers.chat.search import relevant, title_matches
from agent.answers.chat.suggest import suggest_follow_ups
from agent.answers.chat.wording import llm_wording

# the submodules, not the package: `queries` reads `chat.facts`, so its __init__ may still be running
from agent.answers.queries.lists import fresh_stories, hottest_stories, platform_list, region_sources
from agent.answers.queries.story import story_about, story_at, told
from agent.models import Topic
from agent.stories.answer import StoryAnswer, story_answer

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

__all__ = ["Answer", "Style", "StoryAnswer", "Turn", "answer_question", "detect_intent", "hottest", "question_lang",
           "story_answer"]


@dataclass(frozen=True, kw_only=True)
class Answer:
    text: str
    topics: list[Topic]
    lang: Literal["zh", "en"]
    intent: str
    follow_ups: list[str] = field(default_factory=list)  # up to three questions the chat can answer next


async def answer_question(deps: ChatDeps, question: str, *, style: Style = "chat", limit: int = 3,
                          history: Sequence[Turn] = ()) -> Answer:
    """Answer one question; `history` holds the earlier turns, oldest first."""
    lang = question_lang(question)
    count = 2 if style == "glasses" else limit
    intent = detect_intent(question, has_history=bool(history))
    text, facts = await _compose(deps, intent, question, lang, style, count, history)
    if facts and deps.llm is not None:
        worded = await llm_wording(deps, question, text, style, lang, titles=[f.title for f in facts])
        if worded:
            text = worded
    follow_ups = suggest_follow_ups(intent, facts, lang, deps.index.stored.values())
    return Answer(text=text, topics=[f.topic for f in facts], lang=lang, intent=type(intent).__name__,
                  follow_ups=follow_ups)


async def _compose(deps: ChatDeps, intent: Intent, question: str, lang: str, style: Style, count: int,
                   history: Sequence[Turn]) -> tuple[str, list[Fact]]:
    if isinstance(intent, SmallTalk):
        return render_small_talk(intent.kind, lang, style), []
    if isinstance(intent, PlatformList):
        n = 1 if intent.top_only else count if style == "glasses" else max(count, 5)
        facts = await platform_list(deps, intent.source, limit=n)
        return render_platform(intent.source, facts, lang, style, top_only=intent.top_only), facts
    if isinstance(intent, Hottest):
        sources = region_sources(intent.region) if intent.region else None
        facts = await hottest_stories(deps, limit=count, sources=sources)
        if not facts and intent.region:
            return render_no_lists(intent.region, lang), []
        return render_hottest(facts, lang, style), facts
    if isinstance(intent, Fresh):
        sources = (intent.source,) if intent.source else region_sources(intent.region) if intent.region else None
        facts = await fresh_stories(deps, hours=intent.hours, limit=count, sources=sources)
        return render_fresh(facts, lang, style, hours=intent.hours, source=intent.source), facts
    if isinstance(intent, StoryAt):
        fact = await story_at(deps, intent.source, intent.rank)
        if fact is None:
            return render_no_place(intent.source, intent.rank, lang), []
        return await _tell(deps, fact.topic, lang, style, asked=True)
    if isinstance(intent, Story):
        return await _story(deps, intent.subject, lang, style)
    if isinstance(intent, FollowUp):
        current = [s.topic for s in deps.index.stored.values()]
        topic = resolve_follow_up(history, current, position=intent.position, words=intent.words)
        if topic is not None:
            return await _tell(deps, topic, lang, style, asked=True)
        if intent.words:
            return await _story(deps, intent.words, lang, style)
        return render_unresolved(lang), []
    if isinstance(intent, Search):
        topics = await _search(deps, intent, lang, count)
        facts = [await gather(deps, t) for t in topics]
        return render_search(facts, lang, style), facts
    assert_never(intent)


async def _story(deps: ChatDeps, subject: str, lang: str, style: Style) -> tuple[str, list[Fact]]:
    fact = await story_about(deps, subject)
    if fact is None:
        return render_nothing(lang, subject[:80]), []
    return await _tell(deps, fact.topic, lang, style)


async def _tell(deps: ChatDeps, topic: Topic, lang: str, style: Style,
                asked: bool = False) -> tuple[str, list[Fact]]:
    """A story question answered with the whole story (`story.story_answer`): every platform with
    its rank, the trend, and why its items are one story."""
    answer = await told(deps, topic, asked=asked)
    return answer.text(lang, style), [await gather(deps, topic)]


async def _search(deps: ChatDeps, intent: Search, lang: str, count: int) -> list[Topic]:
    index = deps.index
    current = [s.topic for s in index.stored.values()
               if not intent.sources or s.topic.source in intent.sources]
    # titles that hold the asked-about words first, hottest of them first; then the ranker's picks
    literal = {t.id for t in title_matches(intent.subject, current)} if intent.subject else set()
    picked = [s.lead for s in hottest([t for t in current if t.id in literal], index.clusters, limit=count)]
    stories = {index.story_key(t.id) for t in picked}
    picked += [t for t in await relevant(deps, intent.query, top_k=count * 4)
               if (not intent.sources or t.source in intent.sources) and index.story_key(t.id) not in stories]
    if len(picked) < count and (not picked or intent.sources):
        # nothing (or too little) matches: what is hottest in the asker's language, or in the category asked
        if intent.sources:
            pool = [s.topic for s in index.stored.values() if s.topic.source in intent.sources]
        else:
            every = [s.topic for s in index.stored.values()]
            # the asker's language first; lists in the other language rather than nothing at all
            pool = [t for t in every if (t.lang == "zh") == (lang == "zh")] or every
        have = {p.id for p in picked}
        picked += [s.lead for s in hottest(pool, index.clusters, limit=count * 2) if s.lead.id not in have]
    return picked[:count]
