"""Follow-up suggestions: up to three short questions to ask next, each one this chat answers.

The Lingzhu bridges send them after an answer (`type: "follow_up"`); the glasses show them as
tappable chips. Every suggestion is written in a shape `intents.detect_intent` reads (a place in
the last answer, a platform's #1, its story or its list, what is new), names only platforms that
have a list right now, and is in the asker's language.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent.answers.chat.facts import Fact
from agent.answers.chat.intents import FollowUp, Fresh, Hottest, Intent, PlatformList, Search, SmallTalk, Story, StoryAt
from agent.platforms import known_platforms, platform_name
from agent.store import StoredTopic

__all__ = ["MAX_FOLLOW_UPS", "suggest_follow_ups"]

MAX_FOLLOW_UPS = 3  # what the reference bridges send at most (`followUpMaxCount`)

_NTH_ZH = {1: "一", 2: "二", 3: "三"}
_NTH_EN = {1: "first", 2: "second", 3: "third"}


def _nth(n: int, lang: str) -> str:
    return f"第{_NTH_ZH[n]}个是怎么回事？" if lang == "zh" else f"Tell me about the {_NTH_EN[n]} one"


def _top(source: str, lang: str) -> str:
    name = platform_name(source, lang)
    return f"{name}第一是什么？" if lang == "zh" else f"What's number one on {name}?"


def _list(source: str, lang: str) -> str:
    name = platform_name(source, lang)
    return f"{name}上什么最火？" if lang == "zh" else f"What's trending on {name}?"


def _new(lang: str, source: str | None = None) -> str:
    if source:
        name = platform_name(source, lang)
        return f"{name}上有什么新上榜的？" if lang == "zh" else f"What's new on {name}?"
    return "最近几个小时有什么新上榜的？" if lang == "zh" else "What's new in the last few hours?"


def _hottest(lang: str) -> str:
    return "现在最火的是什么？" if lang == "zh" else "What's trending right now?"


def _story_at_top(source: str, lang: str) -> str:
    name = platform_name(source, lang)
    return f"{name}第一是怎么回事？" if lang == "zh" else f"Why is {name}'s #1 trending?"


def suggest_follow_ups(intent: Intent, facts: Sequence[Fact], lang: str, stored: Iterable[StoredTopic]) -> list[str]:
    """Up to `MAX_FOLLOW_UPS` questions to ask after this answer (none after thanks)."""
    listed = {s.topic.source for s in stored}
    platforms = [p for p in known_platforms() if p in listed]  # the table's order: the big lists first

    def other_than(*sources: str) -> list[str]:
        return [p for p in platforms if p not in sources]

    out: list[str] = []
    if isinstance(intent, SmallTalk):
        if intent.kind == "thanks":
            return []
        out = [_hottest(lang), *(_top(p, lang) for p in platforms[:1]), _new(lang)]
    elif not facts:
        out = [_hottest(lang), _new(lang)]
    elif isinstance(intent, PlatformList):
        here = intent.source
        if intent.top_only:
            out = [_story_at_top(here, lang), _list(here, lang)]
        else:
            out = [_nth(2, lang) if len(facts) >= 2 else _story_at_top(here, lang), _new(lang, here)]
        out += [_top(p, lang) for p in other_than(here)[:1]]
    elif isinstance(intent, Hottest | Fresh | Search):
        lead = facts[0].placements[0].source if facts[0].placements else None
        out = [_nth(1, lang), _new(lang) if not isinstance(intent, Fresh) else _hottest(lang),
               *(_list(p, lang) for p in ([lead] if lead else platforms)[:1])]
    elif isinstance(intent, Story | StoryAt | FollowUp):
        # the story's other platforms: what else is on those lists
        where = [p.source for p in facts[0].placements if p.source in listed]
        out = [_list(p, lang) for p in where[:2]] or [_hottest(lang)]
        out.append(_new(lang))
        out += [_top(p, lang) for p in other_than(*where)[:1]]
    return list(dict.fromkeys(out))[:MAX_FOLLOW_UPS]
