"""What a question asks for, read with plain patterns: no model decides the intent.

The table of question shapes lives here as data, in both languages; `detect_intent`
tries them in a fixed order (small talk, follow-up, a place on a list, story, platform,
new/rising, hottest, topic search), so a question that fits two shapes gets the more
specific one. Small talk ("你好", "what can you do?", "谢谢") is only ever the whole
utterance: a greeting in front of a question is dropped and the question answered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.platforms import Category, find_platform, in_category
from agent.text import ZH_DIGITS, ZH_PLACES, is_han

__all__ = ["FollowUp", "Fresh", "Hottest", "Intent", "PlatformList", "Search", "SmallTalk", "Story", "StoryAt",
           "detect_intent", "question_lang"]

Lang = Literal["zh", "en"]
Region = Literal["zh", "en"]  # the Chinese lists, or the English-language ones ("in China", "国外")


@dataclass(frozen=True, kw_only=True)
class PlatformList:
    """One platform's list in its own rank order; `top_only` for "its #1"."""

    source: str
    top_only: bool = False


@dataclass(frozen=True, kw_only=True)
class Hottest:
    """What is hottest across every platform (or one region's), on per-platform normalised heat."""

    region: Region | None = None


@dataclass(frozen=True, kw_only=True)
class Story:
    """One story: where it is listed, how its heat moves, when it first appeared."""

    subject: str


@dataclass(frozen=True, kw_only=True)
class Fresh:
    """What is new or rising in the last hours (optionally on one platform)."""

    hours: float = 6.0
    source: str | None = None
    region: Region | None = None


@dataclass(frozen=True, kw_only=True)
class FollowUp:
    """Refers to an earlier answer: by position ("the second one") or by words ("那个火灾")."""

    position: int | None = None  # 1-based; -1 = the last one
    words: str = ""


@dataclass(frozen=True, kw_only=True)
class Search:
    """Topics about something ("最近有什么关于春晚的热梗"), optionally within a category's platforms."""

    query: str
    subject: str = ""  # the words left once the asking is taken out ("春晚")
    sources: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class StoryAt:
    """The story at one place of one platform's list ("知乎第一是怎么回事", "what's the story with Baidu's #2?")."""

    source: str
    rank: int


@dataclass(frozen=True, kw_only=True)
class SmallTalk:
    """Words that ask for no list: a greeting (or "ping"), what the agent can do, thanks."""

    kind: Literal["greeting", "help", "thanks"]


Intent = PlatformList | Hottest | Story | StoryAt | Fresh | FollowUp | Search | SmallTalk

_Q = r"[\s？?!！。.,，~～…]*"

# "X 是怎么回事" / "why is X trending": the story shapes; `x` is the subject.
_STORY = tuple(re.compile(p, re.I) for p in (
    r"^(?:请问|那)?(?:为什么|为啥|怎么)(?P<x>.+?)(?:会|突然)?(?:上了?热搜|火了|这么火|很火|刷屏|爆了|上榜)" + _Q + "$",
    r"^(?P<x>.+?)\s*(?:到底)?(?:是|又是)?(?:怎么回事|咋回事|怎么了|什么情况|啥情况|是什么梗|什么梗|"
    r"为什么(?:上了?热搜|火了|这么火)|为啥(?:上了?热搜|火了|这么火)|有什么(?:来龙去脉|背景))" + _Q + "$",
    r"^(?:讲讲|说说|介绍一下|聊聊|展开说说|详细说说)(?P<x>.+?)" + _Q + "$",
    r"^(?:and\s+)?why\s+(?:is|are|was|were|did|does)\s+(?P<x>.+?)\s+(?:trending|hot|popular|viral|everywhere|"
    r"in the news|on the list|blowing up|going viral|top)\b.*$",
    r"^(?:so\s+)?what(?:'s| is|s)\s+(?:going on|happening|the deal|the story|up)\s+(?:with|about|at|in)\s+(?P<x>.+?)"
    + _Q + "$",
    r"^what\s+happened\s+(?:to|with|at|in)\s+(?P<x>.+?)" + _Q + "$",
    r"^(?:can you\s+)?(?:tell me|talk)\s+(?:more\s+)?about\s+(?P<x>.+?)" + _Q + "$",
    r"^(?:explain|what(?:'s| is) the story (?:behind|of))\s+(?P<x>.+?)" + _Q + "$",
    r"^what\s+is\s+(?P<x>.+?)\s+about" + _Q + "$",
))

_SUBJECT_EDGES = re.compile(r"^(?:the|this|that|these|those)\s+|\s+(?:story|news|thing|topic|one)$", re.I)

_ORDINALS_ZH = ZH_DIGITS | ZH_PLACES  # a place read in 第一 … 第十二; its pattern admits no 零, 百 or 千
_ORDINALS_EN = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
                "fifth": 5, "5th": 5, "last": -1}
_POSITION_ZH = re.compile(r"第\s*([一二两三四五六七八九十\d]{1,2})\s*(?:个|条|名|项|位|件|则)|最后(?:一个|一条|那个)")
_POSITION_EN = re.compile(r"\b(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last)\s+(?:one|item|story|"
                          r"topic|thing|headline)\b|\b(?:number|no\.?|#)\s*(\d)\b|^(?:the\s+)?(first|second|third|"
                          r"fourth|fifth|last)" + _Q + "$", re.I)
_NUMBERS_EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
# A place on one platform's list, for "知乎第一是怎么回事" / "the story with Baidu's number 2".
_PLACE_ZH = re.compile(r"第\s*([一二两三四五六七八九十\d]{1,3})\s*(?:个|条|名|项|位|件|则)?|榜首|头名")
_PLACE_EN = re.compile(r"(?:#|\bnumber\s*|\bno\.\s*)(\d{1,2})\b|\b(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th)"
                       r"\b|\bnumber (one|two|three|four|five)\b|\bthe top (?:one|story|item|spot)\b|"
                       r"\btop (?:story|one|item|spot)\b", re.I)
# Words that ask about a story rather than for a list.
_ABOUT_IT = re.compile(r"怎么回事|咋回事|什么情况|啥情况|怎么了|为什么|为啥|讲讲|说说|介绍|展开|详细|背景|来龙去脉|"
                       r"\bstory\b|\bwhy\b|\bwhat happened\b|\bgoing on\b|\btell me (?:more )?about\b|\bexplain\b|"
                       r"\bdetails?\b|\bmore about\b|\bbackground\b|\bwhat'?s up with\b", re.I)
_TRAILING_THANKS = re.compile(r"[\s，,。.！!~～]+(?:谢谢(?:你|您|啦)?|多谢|thanks|thank you|thx|please)[\s。.！!~～]*$",
                              re.I)
# "那个火灾" / "that fire": a demonstrative pointing back at something already said.
_POINTER_ZH = re.compile(r"^(?:那|那么|还有)?(?:那个|这个|那条|这条|那件事|这件事|刚才(?:说的|那个)?|"
                         r"上面(?:说的|那个|的)?)(?P<x>.*?)" + _Q + "$")
_POINTER_EN = re.compile(r"^(?:and\s+|so\s+|what about\s+|how about\s+|more on\s+)?(?:that|this|the one about|"
                         r"the one with)\s+(?P<x>.*?)" + _Q + "$", re.I)
_POINTER_TAIL = re.compile(r"(?:是怎么回事|怎么回事|咋回事|怎么了|什么情况|呢|啊|吗|one|story|thing|about|please|"
                           r"again|more)\s*$", re.I)

_TOP_ONLY = re.compile(r"第一(?!个)|榜首|头名|排名第一|最顶上|top\s*1\b|#\s*1\b|number\s*one|no\.?\s*1\b|"
                       r"\bthe top (?:one|story|item|spot)|\btop (?:story|one|item)\b|\btop spot\b|\bfirst place\b|"
                       r"\bthe #?1\b", re.I)
_FRESH = re.compile(r"新上榜|刚上榜|新上的|新的|新出现|刚出来|新冒出|刚冒出|新上了|在涨|上升|飙升|升温|涨得最快|"
                    r"蹿升|窜升|"
                    r"最近几个?小时|过去几个?小时|几个?小时(?:内|里)|刚刚上|最新|"
                    r"\bnew\b|\bnewly\b|\bjust (?:started|appeared|popped)|\brising\b|\bclimbing\b|\bon the rise\b|"
                    r"\bsurging\b|\blatest\b|\b(?:last|past) (?:few |couple of )?hours?\b|\bgaining\b", re.I)
_HOURS = re.compile(r"(\d{1,2})\s*(?:个)?(?:小时|hours?|h\b)", re.I)
_HOTTEST = re.compile(r"最火|最热|热度最高|最受关注|最热门|最多人|什么火|啥火|热点|热搜|热门|热榜|热梗|大新闻|"
                      r"\bhottest\b|\bmost (?:popular|talked|discussed)\b|\bbiggest\b|\btop (?:stories|story|news|"
                      r"topics?|trends?)\b|\btrending\b|\bhot\b|\bviral\b|\bheadlines?\b|\bbuzz", re.I)

# Category words → the subject; agent/platforms.py says which platforms cover it ("what's trending in tech?")
_CATEGORIES: tuple[tuple[re.Pattern[str], Category], ...] = (
    (re.compile(r"\b(tech|technology|programming|developers?|coding|software|open source|ai)\b"
                r"|科技|技术|程序员|编程|开源", re.I), "tech"),
    (re.compile(r"\b(videos?|youtube)\b|视频|哔哩", re.I), "video"),
)
# "in China" / "国外": a question about one region's lists, told apart by their language.
_REGIONS: tuple[tuple[re.Pattern[str], Region], ...] = (
    (re.compile(r"中国|国内|大陆|内地|\bchina\b|\bchinese\b|\bmainland\b", re.I), "zh"),
    (re.compile(r"国外|海外|外网|外国|美国|欧美|西方|英文|英语|(?-i:\bUS\b)|\bU\.S\.(?:A\.)?|\bUSA\b|\bAmericans?\b|"
                r"\bAmerica\b|\bthe States\b|\boverseas\b|\babroad\b|\bwestern\b|\bthe west\b|\bEnglish\b|"
                r"\binternational(?:ly)?\b", re.I), "en"),
)
# Words that ask rather than name a subject; what is left after removing them is the subject.
_FILLER = re.compile(
    r"请问|你好|最近|现在|目前|今天|今日|刚才|此刻|眼下|一下|有什么|有啥|有哪些|哪些|什么|啥|哪个|是什么|关于|上面|上的|上|"
    r"全网|全平台|各大?平台|所有平台|网上|网络上|"
    r"大家|都在|在聊|在看|讨论|热梗|热搜榜?|热点|热门|热榜|新闻|最火|最热|火的|榜单|榜|排行|第一|前几|几条|看看|告诉我|"
    r"的|了|吗|呢|啊|呀|吧|是|在|给我|说说|一些|都|"
    r"\b(?:what'?s|whats|what|is|are|was|the|a|an|on|in|at|of|for|about|any|anything|something|right|now|today|"
    r"tonight|currently|at the moment|this|these|trending|trend|trends|hot|hottest|top|news|popular|tell|me|show|"
    r"give|list|please|us|going|there|people|talking|everyone|stories|story|topics?|things?|up|most|biggest|"
    r"number|one|happening|new|latest|rising|with|can|you|do|does|know|i|hey|ok|so|and|lately|recently|"
    r"hours?|last|past|few|across|all|platforms?|everywhere|internet|online|web|social media|world|help|find)\b|"
    r"[\s？?!！。.,，、:：;；'\"“”‘’#~～…()（）「」《》0-9]",
    re.I)


# Small talk is matched on whole clauses only, so a question that merely contains "你好" or "thanks"
# is still a question. Each pattern is one clause, punctuation and trailing particles removed.
_SMALL_TALK: tuple[tuple[Literal["greeting", "help", "thanks"], re.Pattern[str]], ...] = (
    ("help", re.compile(
        r"(?:你|您)?(?:都|还)?(?:能|会|可以)(?:帮我)?(?:做|干|帮)?(?:些|点)?(?:什么|啥|哪些事情?)|你有(?:什么|哪些|啥)(?:功能|用)|"
        r"(?:怎么|如何)(?:用|使用)(?:你)?|使用说明|帮助|功能|我(?:能|可以)问(?:你)?(?:什么|啥|哪些)|(?:能|可以)问(?:你)?(?:什么|啥)|"
        r"help|help me|menu|commands|usage|what can you do|what (?:else )?can you do|what do you do|"
        r"what can i ask(?: you)?|what should i ask(?: you)?|how do i use (?:you|this|it)|how does this work|"
        r"what are you (?:for|good for|able to do)|what can you tell me|what do you know", re.I)),
    ("thanks", re.compile(
        r"谢谢(?:你|您|啦|了|哈)?|多谢|感谢(?:你|您)?|谢了|辛苦了|好的谢谢|好的|好吧|行|收到|明白了?|知道了|懂了|了解了?|"
        r"不错|太棒了|真棒|厉害|3q|thx|thanks?(?: a lot| so much| very much| again)?|thank you(?: so much| very much)?|"
        r"ty|cheers|ok(?:ay)?(?: thanks?| thank you)?|got it|great(?: thanks?)?|cool|nice|awesome|perfect", re.I)),
    ("greeting", re.compile(
        r"你好|您好|你好啊|哈喽|哈啰|嗨|嘿|喂|在吗|在不在|在么|早|早上好|早安|上午好|中午好|下午好|晚上好|大家好|测试|"
        r"你是谁|你叫什么(?:名字)?|介绍一下你自己|自我介绍一下|"
        r"hi|hello|hey|hiya|howdy|yo|ping|test|testing|greetings|(?:hi|hello|hey) there|"
        r"good (?:morning|afternoon|evening|day)|who are you|what are you|introduce yourself", re.I)),
)
_CLAUSES = re.compile(r"[\s]*[，,。.！!？?~～…、;；:：\n]+[\s]*")
_PARTICLES = re.compile(r"(?:呀|啊|呢|吧|哦|哈|嘛|啦|喔|~)+$")
# A greeting or thanks in front of a question ("你好，微博热搜第一是什么", "hi what's trending"): dropped, the
# question answered.
# Punctuation must follow it, or (speech-to-text without punctuation) a question word: "hello kitty" is a title.
_LEADING_COURTESY = re.compile(
    r"^(?:你好|您好|哈喽|嗨|谢谢|多谢|好的|hi|hello|hey|thanks|thank you|ok|okay)(?:\s*there)?"
    r"(?:\s*[，,。.！!~～]+\s*|\s+(?=(?:what|why|how|who|which|where|when|tell|show|any|is|are|can|could|do|does)\b))",
    re.I)


def _small_talk_kind(clause: str) -> Literal["greeting", "help", "thanks"] | None:
    clause = _PARTICLES.sub("", clause.strip(" '\"“”‘’()（）「」"))
    for kind, pattern in _SMALL_TALK:
        if pattern.fullmatch(clause):
            return kind
    return None


def _small_talk(q: str) -> SmallTalk | None:
    """Small talk when every clause of the utterance is small talk (help beats thanks beats a greeting)."""
    clauses = [c for c in _CLAUSES.split(q) if c.strip()]
    if not clauses:
        return None
    kinds = [_small_talk_kind(c) for c in clauses]
    if any(k is None for k in kinds):
        return None
    for kind in ("help", "thanks", "greeting"):
        if kind in kinds:
            return SmallTalk(kind=kind)  # type: ignore[arg-type]
    return None


def question_lang(question: str) -> Lang:
    """Chinese when the question is asked in Chinese; an English question may quote a Chinese title."""
    han = sum(1 for ch in question if is_han(ch))
    latin_words = re.findall(r"[A-Za-z]+", question)
    asks_in_english = re.search(r"\b(what|why|how|who|which|where|when|is|are|tell|show|anything|any|trending|"
                                r"hot|hottest|happened|going on|the|about|one|new|rising)\b", question, re.I)
    if han and not (asks_in_english and len(latin_words) >= 2):
        return "zh"
    return "en"


def _core(text: str) -> str:
    """The subject left once asking words, platform names and punctuation are gone."""
    found = find_platform(text)
    if found:
        text = text.replace(found[1], " ")
    text = _TOP_ONLY.sub(" ", _FRESH.sub(" ", text))
    for pattern, _ in _REGIONS:
        text = pattern.sub(" ", text)
    return _FILLER.sub(" ", text).strip()


def _region(text: str) -> Region | None:
    """The one region a question names ("in China", "国外"); None when it names none, or both."""
    named = {region for pattern, region in _REGIONS if pattern.search(text)}
    return named.pop() if len(named) == 1 else None


def _zh_number(token: str) -> int | None:
    """"三" → 3, "十二" → 12, "二十" → 20, "7" → 7."""
    if token.isdigit():
        return int(token)
    if token == "十":
        return 10
    if len(token) == 2 and token[0] == "十":
        return 10 + _ORDINALS_ZH.get(token[1], 0)
    if len(token) == 2 and token[1] == "十":
        return _ORDINALS_ZH.get(token[0], 0) * 10
    return _ORDINALS_ZH.get(token[0])


def _position(question: str) -> int | None:
    m = _POSITION_ZH.search(question)
    if m:
        if m.group(0).startswith("最后"):
            return -1
        return _zh_number(m.group(1))
    m = _POSITION_EN.search(question)
    if m:
        word = m.group(1) or m.group(3)
        return _ORDINALS_EN[word.lower()] if word else int(m.group(2))
    return None


def _place(q: str) -> tuple[int, str] | None:
    """A place on a list the question names ("第三", "榜首", "#2", "number one", "the top story"), and its words."""
    m = _PLACE_ZH.search(q)
    if m:
        rank = _zh_number(m.group(1)) if m.group(1) else 1
        return (rank, m.group(0)) if rank else None
    m = _PLACE_EN.search(q)
    if m:
        if m.group(1):
            return int(m.group(1)), m.group(0)
        word = (m.group(2) or m.group(3) or "one").lower()
        return _ORDINALS_EN.get(word) or _NUMBERS_EN.get(word, 1), m.group(0)
    return None


def _story_at(q: str, platform: str) -> StoryAt | None:
    """"知乎第一是怎么回事" / "what's the story with Zhihu's #2?": the story at a place of a named list."""
    place = _place(q)
    if place is None or place[0] < 1:
        return None
    rank, words = place
    if not _ABOUT_IT.search(q.replace(words, " ")):  # "top story on reddit" asks for the list's #1, not its story
        return None
    return StoryAt(source=platform, rank=rank)


def _drop_courtesy(q: str) -> str:
    """The question inside "你好，…" or "…, thanks": a greeting before it and thanks after it are dropped."""
    rest = q
    for _ in range(3):  # "hi, thanks, and what's new?": each courtesy in turn
        shorter = _TRAILING_THANKS.sub("", _LEADING_COURTESY.sub("", rest, count=1)).strip()
        if shorter == rest or not shorter:
            break
        rest = shorter
    return rest


def detect_intent(question: str, *, has_history: bool = False) -> Intent:
    """The intent of one question; `has_history` when earlier turns can resolve a follow-up."""
    q = " ".join(question.split())
    talk = _small_talk(q)
    if talk is not None:
        return talk
    q = _drop_courtesy(q)
    platform = find_platform(q)
    if has_history and platform is None:
        position = _position(q)
        if position is not None:
            return FollowUp(position=position)
        m = _POINTER_ZH.match(q) or _POINTER_EN.match(q)
        if m:
            words = _POINTER_TAIL.sub("", m.group("x")).strip(" 的")
            return FollowUp(words=words)
    if platform is not None:
        at = _story_at(q, platform[0].source)
        if at is not None:
            return at
    for pattern in _STORY:
        m = pattern.match(q)
        if m:
            subject = _SUBJECT_EDGES.sub("", m.group("x")).strip(" \"'“”「」《》")
            if _core(subject):
                return Story(subject=subject)
            break  # "今天最火的是什么" has the shape of a story question but no subject
    if platform is not None and not _core(q):
        p, _ = platform
        if _FRESH.search(q):
            return Fresh(source=p.source, hours=_hours(q))
        return PlatformList(source=p.source, top_only=bool(_TOP_ONLY.search(q)))
    core = _core(q)
    if _FRESH.search(q) and not core:
        return Fresh(hours=_hours(q), region=_region(q))
    sources: tuple[str, ...] = ()
    for pattern, category in _CATEGORIES:
        if pattern.search(q):
            sources = in_category(category)
            break
    if not core and not sources:
        return Hottest(region=_region(q))
    if platform is not None:
        sources = (platform[0].source,)
    return Search(query=q, subject=core, sources=sources)


def _hours(q: str) -> float:
    m = _HOURS.search(q)
    return float(m.group(1)) if m and 0 < int(m.group(1)) <= 48 else 6.0
