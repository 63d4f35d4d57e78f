"""What a headline says happened: its event terms, its speaker, and its counted quantities.

Story merging compares headlines on these rather than on raw bigrams, because hot lists
word one event many ways and many events one way:

- numbers are read the same whatever the script: 一家三口 and 1家3口 both give `1家`, `3口`;
  "美国 3 名特工" and "3名美国特工" both give `3名` (spaces around digits are dropped);
- a number with its measure word (`3名`, `22死`, `9价`) is a *quantity*; two headlines that
  count the same thing with different numbers (3名 vs 4名) are not the same event;
- a short prefix before 回应 / ： / 称 / 表示 … is a *speaker* (外交部, 海关总署, 医生). The
  speaker says who answered, not what happened, so its terms are kept apart: two headlines
  that share only a speaker are different news;
- question and template words (如何看待, 有哪些, 回应) carry no event and are dropped.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

from agent.ranking.bridges import dictionary
from agent.stories.calendar_words import calendar_names
from agent.text import HAN, is_han

__all__ = ["StoryTerms", "story_terms"]

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
           "九": 9}
_CN_NUMBER = re.compile(r"[零〇一二两三四五六七八九十百千]+")
_HAN = HAN  # the one Han range (agent/text.py)
# units: one Han character, a number (with decimals or %), or a Latin word with its digits (su7, rtx)
_UNIT = re.compile(rf"[{_HAN}]|\d+(?:\.\d+)?%?|[a-z][a-z0-9]*")
_YEAR = re.compile(r"(?:19|20)\d\d")
# When, not what (read after `normalise`, so 五一 is 51 and 十月一 is 10月1): dates, the words of the
# calendar for seasons, days and breaks, and the calendar's own day names (`calendar_names`: a full
# public calendar's festivals, not chosen from any day's news). A word saying when joins no term, as
# a year does: two stories of one holiday share its name, and the holiday alone must not make them one.
_TIME_WORDS = (
    # a year with its 年 (2024年): when, not a counted quantity (3年 of a sentence is one)
    r"(?:19|20)\d\d年|\d{1,2}月\d{1,2}[日号]?|\d{1,2}月(?:份|初|中|底)?|51(?=假|小长假|长假|档|劳动|黄金周)|黄金周|小长假|长假|假期|"
    r"双11|周末|今天|昨天|明天|今日|今年|去年|明年|春天|夏天|秋天|冬天|春日|夏日|寒假|暑假|开学季|毕业季|"
    # the year by its zodiac animal: a year's name, as 2024 is
    r"(?:鼠|牛|虎|兔|龙|蛇|马|羊|猴|鸡|狗|猪)年")


def _when() -> re.Pattern[str]:
    names = dict.fromkeys(normalise(n) for n in calendar_names())
    return re.compile(_TIME_WORDS + "|" + "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n))))


# a speaker: a short name at the start, then a verb of saying or a colon
_SPEAKER = re.compile(rf"^([{_HAN}a-z]{{2,6}}?)(回应|：|:|称|表示|发文|喊话|通报|发声|辟谣|谈)")
# Question and template bigrams of hot-list headlines: they say how something is asked, never what
# happened (generic Chinese, not tied to any one day's news).
_TEMPLATE = frozenset(
    """
如何 何看 何评 看待 评价 哪些 有哪 什么 为什么 怎么 怎样 是否 能否 可能 值得 关注 期待 对此 这一 这个 一个 这种
还是 我们 你们 他们 自己 就是 不是 没有 可以 因为 所以 但是 如果 已经 真的 现在 回应 发文 表示 网友 曝光
细节 最新 官方 视频 多少 目前 背后 反映 原因 影响 问题 情况 部分 一些 全部 所有 多个 各种
""".split()
)


def _cn_to_int(run: str) -> int | None:
    """一 → 1, 三十五 → 35, 二〇二五 → 2025; None for runs that are not a plain number."""
    if all(ch in _DIGITS for ch in run):
        return int("".join(str(_DIGITS[ch]) for ch in run))
    total, current = 0, 0
    for ch in run:
        if ch in _DIGITS:
            current = _DIGITS[ch]
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[ch]
            total += (current or 1) * unit
            current = 0
    return total + current


def normalise(title: str) -> str:
    """NFKC, lower case, Chinese numerals as digits, no spaces next to Han characters or digits."""
    text = unicodedata.normalize("NFKC", title).lower()

    def digits(m: re.Match[str]) -> str:
        value = _cn_to_int(m.group(0))
        return m.group(0) if value is None else str(value)

    text = _CN_NUMBER.sub(digits, text)
    # "美国 3 名特工" and "3名美国特工" must read alike; a space between two Latin words stays
    return re.sub(rf"(?<=[{_HAN}\d])\s+|\s+(?=[{_HAN}\d])", "", text)


@dataclass(frozen=True)
class StoryTerms:
    terms: frozenset[str]  # event terms (speaker and template words removed)
    speaker: frozenset[str]  # terms of the speaker prefix, if any
    quantities: frozenset[tuple[str, str]]  # (measure word, number)
    speaker_name: str = ""  # the speaker prefix as written (雷军, 小米汽车), if any


def _segment_terms(units: list[str]) -> list[str]:
    out = []
    for a, b in zip(units, units[1:], strict=False):
        out.append(a + b)
    for u in units:
        if not is_han(u):  # numbers and Latin words also stand alone
            # a lone small number (3, 15) says nothing alone; 0451110, hpv and su7 do
            if (u.isdigit() and len(u) >= 3) or (not u[0].isdigit() and len(u) >= 2):
                out.append(u)
    if len(units) == 1 and not out:
        out.append(units[0])
    return out


def _split_years(units: list[str]) -> list[list[str]]:
    """A year (2025) says when, not what: it joins no term, so two lists' "2025 …" do not match."""
    runs: list[list[str]] = [[]]
    for u in units:
        if _YEAR.fullmatch(u):
            runs.append([])
        else:
            runs[-1].append(u)
    return [r for r in runs if r]


_WHEN = _when()


@cache
def _places() -> frozenset[str]:
    """CC-CEDICT's places, read once (`dictionary()` takes its lock on every call)."""
    return frozenset(dictionary().places)


@cache
def dictionary_words() -> frozenset[str]:
    """CC-CEDICT's Chinese headwords, read once: what is a word of its own, not a seam between two."""
    return frozenset(dictionary().headwords)


def _local_days(text: str) -> set[str]:
    """A day's name qualified by the place that keeps it (a province before a holiday: that province's
    own festival or gala) names that place's own celebration, one event, where the day's name alone is
    shared by everything said of the day: the place and the day together make one term. The places are
    CC-CEDICT's provinces, regions and cities (`bridges.dictionary`)."""
    places = _places()
    out = set()
    for m in _WHEN.finditer(text):
        start = m.start()
        for size in (3, 2):
            if start >= size and text[start - size:start] in places:
                out.add(text[start - size:start] + m.group(0))
                break
    return out


def story_terms(title: str) -> StoryTerms:
    normalised = normalise(title)
    local = _local_days(normalised)
    text = _WHEN.sub(" ", normalised)
    speaker_terms: set[str] = set()
    m = _SPEAKER.match(text)
    speaker = m.group(1) if m else ""
    if m:
        speaker_terms.update(_segment_terms(_UNIT.findall(m.group(1))))
        text = text[m.end():]
    terms: set[str] = set()
    quantities: set[tuple[str, str]] = set()
    # punctuation and spaces between words break a segment: no bigram spans them
    for segment in re.split(rf"[^{_HAN}a-z0-9.%]+", text):
        units = _UNIT.findall(segment)
        for run in _split_years(units):
            terms.update(_segment_terms(run))
        for a, b in zip(units, units[1:], strict=False):
            if a[0].isdigit() and len(b) == 1 and is_han(b):
                quantities.add((b, a))
    terms -= _TEMPLATE
    terms -= speaker_terms
    terms |= local
    return StoryTerms(frozenset(terms), frozenset(speaker_terms), frozenset(quantities), speaker)


@lru_cache(maxsize=1 << 16)  # bounded: the held headlines change every fetch, for as long as the service runs
def speaker_of(title: str) -> frozenset[str]:
    """The terms of the speaker `title` opens with (外交部 of "外交部回应…"), none when it opens with no speaker."""
    return story_terms(title).speaker
