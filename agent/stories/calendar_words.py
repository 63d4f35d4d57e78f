"""The names of the calendar's days (festivals, holidays, memorial days), from a full public calendar.

Story terms drop words that say *when* (`terms._WHEN`): two stories of one holiday share
the holiday's name and nothing else. The names come from `cnlunar`'s calendar, which holds every
year's statutory holidays, the traditional lunar festivals and the observed international and
national days, so no day's news chose them: each festival's full name (国际愚人节), the name
without its 国际/世界/中国 prefix (愚人节), and a traditional festival's name without its 节 (中秋,
端午) where two characters are left. The moving days cnlunar keeps out of its tables (Mother's
and Father's Day, Thanksgiving) are named in its comments and added here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

__all__ = ["calendar_names"]

_PREFIX = re.compile(r"^(?:国际|世界|中国人民解放军|中国|全国)")
_MOVING = ("母亲节", "父亲节", "感恩节", "复活节")  # cnlunar computes these, its tables do not list them


def _names(values: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for value in values:
        out.update(p for p in re.split(r"[,，\-]", value) if p)
    return out


@cache
def calendar_names() -> tuple[str, ...]:
    """Every day name the calendar gives, longest first (so a regex alternation takes the whole name)."""
    from cnlunar import holidays as calendar

    traditional = _names(calendar.legalLunarHolidaysDic.values()) | _names(
        calendar.legalsolarTermsHolidayDic.values())
    for month in calendar.otherLunarHolidaysList:
        # festivals (七夕, 除夕, 小年, 三月三, …节), not the saints' and gods' days beside them
        traditional |= {n for n in _names(month.values())
                        if n.endswith("节") or (len(n) <= 3 and not n.endswith(("诞", "降", "忌")))}
    legal = _names(calendar.legalHolidaysDic.values())
    solar = set(legal)
    for month in calendar.otherHolidaysList:
        solar |= {n for n in _names(month.values()) if n.endswith("节")}  # a festival, not a memorial day
    out = traditional | solar | set(_MOVING)
    out |= {_PREFIX.sub("", n) for n in solar if len(_PREFIX.sub("", n)) >= 3}
    # a festival is said without its 节 (中秋, 元旦), where that leaves its own two-character name
    out |= {n[:-1] for n in traditional | legal if n.endswith("节") and len(n) == 3}
    return tuple(sorted(out, key=lambda n: (-len(n), n)))
