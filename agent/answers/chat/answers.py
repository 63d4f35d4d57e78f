"""Answers worded from facts, per intent, in the asker's language and in two styles.

`chat`: a numbered list with platform ranks, heat and safe links (shown by `links.readable_link`).
`glasses` (Lingzhu, `style=glasses`): read aloud and shown on a small card, so no
links, at most two items, short sentences, and platforms named in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from agent.answers.chat.facts import Fact, Placement, short_title
from agent.platforms import platform_name
from agent.sources.links import readable_link
from agent.text import format_heat

__all__ = ["Style", "render_fresh", "render_hottest", "render_no_lists", "render_no_place", "render_nothing",
           "render_platform", "render_search", "render_small_talk", "render_unresolved"]

Style = Literal["chat", "glasses"]

_TREND_ZH = {"new": "新上榜", "rising": "在涨", "falling": "在降", "steady": "平稳"}
_TREND_EN = {"new": "new", "rising": "rising", "falling": "cooling", "steady": "steady"}


def _where(placements: Sequence[Placement], lang: str, style: Style, *, limit: int = 3) -> str:
    parts = []
    for p in placements[:limit]:
        name = platform_name(p.source, lang)
        if style == "glasses":
            rank = (f"排第{p.rank}" if lang == "zh" else f"number {p.rank}") if p.rank else ""
            parts.append(f"{name}{rank}" if lang == "zh" else (f"{rank} on {name}" if rank else f"on {name}"))
        else:
            rank = (f"第{p.rank}" if lang == "zh" else f" #{p.rank}") if p.rank else ""
            parts.append(f"{name}{rank}")
    if lang == "zh":
        return ("，" if style == "glasses" else "、").join(parts)
    return (" and " if style == "glasses" else ", ").join(parts)


def _line(n: int, fact: Fact, lang: str, *, show_where: bool = True, show_trend: bool = False) -> str:
    bits = []
    if show_where:
        bits.append(_where(fact.placements, lang, "chat"))
    heat = format_heat(fact.heat, lang)
    if heat:
        bits.append(f"热度{heat}" if lang == "zh" else f"heat {heat}")
    if show_trend:
        bits.append(_TREND_ZH[fact.trend] if lang == "zh" else _TREND_EN[fact.trend])
    detail = ("，" if lang == "zh" else ", ").join(b for b in bits if b)
    link = f" {shown}" if (shown := readable_link(fact.link)) else ""
    return f"{n}. {fact.title}" + (f" — {detail}" if detail else "") + link


def _quote(title: str, lang: str) -> str:
    return f"「{title}」" if lang == "zh" else title


def _say(fact: Fact, lang: str) -> str:
    """The title as the glasses say it: its first clause when long, with no closing punctuation to clash."""
    return _quote(short_title(fact.title).rstrip("。.！!？?…，,"), lang)


def render_nothing(lang: str, about: str | None = None) -> str:
    if lang == "zh":
        return f"暂时没有找到「{about}」相关的热门话题。" if about else "暂时没有找到相关的热门话题。"
    return f"I found nothing trending about {about} right now." if about else \
        "I found nothing trending about that right now."


def render_no_lists(region: str, lang: str) -> str:
    """No current list from the region asked about ("国外最火的是什么" with only Chinese lists held)."""
    if region == "zh":
        return "现在没有国内平台的榜单。" if lang == "zh" else "I have no current lists from Chinese platforms."
    return "现在没有国外平台的榜单。" if lang == "zh" else "I have no current lists from platforms outside China."


def render_no_place(source: str, rank: int, lang: str) -> str:
    """A place past the end of a list ("知乎第80是怎么回事")."""
    name = platform_name(source, lang)
    if lang == "zh":
        return f"{name}现在的榜单上没有第{rank}名。"
    return f"{name}'s current list has no number {rank}."


# What the agent answers, said when asked (and offered as follow-ups on the glasses).
_WHO = {"zh": "你好！我是热梗透视镜，知道微博、知乎、抖音、百度、Hacker News 等平台现在什么最火。",
        "en": "Hi! I'm TrendLens: I know what's trending right now on Weibo, Zhihu, Douyin, Baidu, Hacker News "
              "and more."}
_HELP = {"zh": ("我能告诉你：1. 现在各平台最火的是什么；2. 某个平台的热榜，比如“微博热搜第一是什么”；"
                "3. 某件事为什么上热搜、在哪些平台、热度怎么走；4. 最近几小时新上榜或在涨的话题。"),
         "en": ("I can tell you: 1. what's hottest across platforms right now; 2. one platform's list, like "
                "\"what's number one on Weibo?\"; 3. why something is trending, where it is listed and how its heat "
                "moves; 4. what's new or rising in the last few hours.")}
_HELP_GLASSES = {"zh": "我能说全网最火的、某个平台的热榜、某件事为什么上热搜，还有最近新上榜的。",
                 "en": "I can tell you what's hottest, a platform's top list, why something is trending, "
                       "and what's new."}
_THANKS = {"zh": "不客气！想知道什么热点，随时问我。", "en": "You're welcome! Ask me anytime about what's trending."}


def render_small_talk(kind: str, lang: str, style: Style) -> str:
    """A greeting gets one line of who this is, help the things it answers, thanks a short reply."""
    key = "zh" if lang == "zh" else "en"
    if kind == "help":
        return (_HELP_GLASSES if style == "glasses" else _HELP)[key]
    if kind == "thanks":
        return _THANKS[key]
    return _WHO[key]


def render_unresolved(lang: str) -> str:
    return ("没听出你指的是哪一条，可以说一下标题吗？" if lang == "zh"
            else "I couldn't tell which one you mean. Could you name it?")


# (glasses: first item, second item; chat: heading) per language
_SEARCH = {"zh": ("最相关的是", "还有", "最近的相关热点："), "en": ("Top match: ", "Also: ", "Trending now:")}
_HOTTEST = {"zh": ("现在最火的是", "其次是", "现在各平台最火的："),
            "en": ("Hottest now: ", "Next: ", "Hottest across platforms now:")}


def _render_list(facts: Sequence[Fact], lang: str, style: Style, words: dict[str, tuple[str, str, str]]) -> str:
    if not facts:
        return render_nothing(lang)
    first_word, next_word, head = words["zh" if lang == "zh" else "en"]
    if style == "glasses":
        first, rest = facts[0], facts[1:2]
        if lang == "zh":
            out = f"{first_word}{_say(first, lang)}，在{_where(first.placements, lang, style)}。"
            return out + (f"{next_word}{_say(rest[0], lang)}。" if rest else "")
        out = f"{first_word}{_say(first, lang)}, {_where(first.placements, lang, style)}."
        return out + (f" {next_word}{_say(rest[0], lang)}." if rest else "")
    return "\n".join([head, *(_line(n, f, lang) for n, f in enumerate(facts, 1))])


def render_search(facts: Sequence[Fact], lang: str, style: Style) -> str:
    """Topics about what was asked, best match first."""
    return _render_list(facts, lang, style, _SEARCH)


def render_hottest(facts: Sequence[Fact], lang: str, style: Style) -> str:
    """Hottest across platforms, on per-platform normalised heat."""
    return _render_list(facts, lang, style, _HOTTEST)


def render_platform(source: str, facts: Sequence[Fact], lang: str, style: Style, *, top_only: bool) -> str:
    """One platform's list in its own order (or only its #1)."""
    name = platform_name(source, lang)
    if not facts:
        return f"现在没有{name}的榜单。" if lang == "zh" else f"I have no current list from {name}."
    def rank_of(i: int, f: Fact) -> int:
        return f.placements[0].rank if f.placements and f.placements[0].rank else i

    if style == "glasses":
        shown = facts[:1] if top_only else facts[:2]
        if lang == "zh":
            return "".join(f"{name}第{rank_of(i, f)}是{_say(f, lang)}。" if i == 1
                           else f"第{rank_of(i, f)}是{_say(f, lang)}。" for i, f in enumerate(shown, 1))
        return " ".join(f"Number {rank_of(i, f)} on {name}: {_say(f, lang)}." if i == 1
                        else f"Number {rank_of(i, f)}: {_say(f, lang)}." for i, f in enumerate(shown, 1))
    if top_only:
        f = facts[0]
        heat = format_heat(f.heat, lang)
        link = f"\n{url}" if (url := readable_link(f.link)) else ""
        if lang == "zh":
            return f"{name}第一：{_quote(f.title, lang)}" + (f"，热度{heat}" if heat else "") + "。" + link
        return f"Number 1 on {name}: {f.title}" + (f" (heat {heat})" if heat else "") + "." + link
    head = f"{name}现在的前{len(facts)}名：" if lang == "zh" else f"Top {len(facts)} on {name} now:"
    return "\n".join([head, *(_line(rank_of(i, f), f, lang, show_where=False) for i, f in enumerate(facts, 1))])


def render_fresh(facts: Sequence[Fact], lang: str, style: Style, *, hours: float, source: str | None) -> str:
    """New or rising in the last hours."""
    h = f"{hours:g}"
    where = platform_name(source, lang) if source else ""
    if not facts:
        if lang == "zh":
            return f"最近{h}小时{where}没有新上榜或在涨的话题。"
        return f"Nothing new or rising{' on ' + where if where else ''} in the last {h} hours."
    if style == "glasses":
        first, rest = facts[0], facts[1:2]
        if lang == "zh":
            out = (f"{_TREND_ZH[first.trend]}的有{_say(first, lang)}，"
                   f"在{_where(first.placements, lang, style)}。")
            return out + (f"还有{_say(rest[0], lang)}，{_TREND_ZH[rest[0].trend]}。" if rest else "")
        out = f"{_TREND_EN[first.trend].capitalize()}: {_say(first, lang)}, {_where(first.placements, lang, style)}."
        return out + (f" Also {_TREND_EN[rest[0].trend]}: {_say(rest[0], lang)}." if rest else "")
    if lang == "zh":
        head = f"最近{h}小时{where}新上榜或在涨的："
    else:
        head = f"New or rising{' on ' + where if where else ''} in the last {h} hours:"
    return "\n".join([head, *(_line(n, f, lang, show_trend=True) for n, f in enumerate(facts, 1))])


