"""A span of time said in words: 今天 / today, 昨天, 本周 / this week, 上周, 本月, 最近7天 / last 7 days,
过去24小时 / last 24 hours, a date (2025-06-07) or two dates (2025-06-01..2025-06-07).

Days and weeks are the operator's calendar days in UTC (the store's clock); a week starts on Monday.
Anything else is an InputError naming what is understood, so an agent can correct its call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from agent.errors import InputError

__all__ = ["Period", "parse_period"]

MAX_DAYS = 400  # beyond any retention a store keeps
_UNDERSTOOD = ("today/今天, yesterday/昨天, this week/本周, last week/上周, this month/本月, "
               "last N days/最近N天, last N hours/过去N小时, 2025-06-07, or 2025-06-01..2025-06-07")
_LAST = re.compile(r"^(?:last|past|the last|the past|最近|近|过去)\s*(\d{1,4})\s*(days?|天|日|hours?|小时|h|d)$")
_RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})\s*(?:\.\.|to|–|—|~|至|到)\s*(\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True)
class Period:
    since: datetime  # inclusive
    until: datetime  # exclusive
    label: str  # as asked


def _day(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise InputError(f"period: {text!r} is not a date (YYYY-MM-DD)") from None


def parse_period(text: str, *, now: datetime) -> Period:
    said = " ".join(text.strip().casefold().split())
    today = _day(now.astimezone(UTC).date())
    monday = today - timedelta(days=today.weekday())
    named = {
        ("today", "今天", "今日"): (today, now),
        ("yesterday", "昨天", "昨日"): (today - timedelta(days=1), today),
        ("this week", "本周", "这周", "这一周"): (monday, now),
        ("last week", "上周", "上一周"): (monday - timedelta(days=7), monday),
        ("this month", "本月", "这个月"): (today.replace(day=1), now),
    }
    for words, (since, until) in named.items():
        if said in words:
            return Period(since, until, text.strip())
    if m := _LAST.match(said):
        n, unit = int(m.group(1)), m.group(2)
        hours = n if unit in ("hour", "hours", "小时", "h") else n * 24
        if not 0 < hours <= MAX_DAYS * 24:
            raise InputError(f"period: {text.strip()!r} spans more than {MAX_DAYS} days or none")
        return Period(now - timedelta(hours=hours), now, text.strip())
    if m := _RANGE.match(said):
        first, last = _date(m.group(1)), _date(m.group(2))
        if last < first or (last - first).days > MAX_DAYS:
            raise InputError(f"period: {text.strip()!r} ends before it starts or spans more than {MAX_DAYS} days")
        return Period(_day(first), _day(last) + timedelta(days=1), text.strip())
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", said):
        day = _day(_date(said))
        return Period(day, day + timedelta(days=1), text.strip())
    raise InputError(f"period: {text.strip()[:60]!r} is not understood; say {_UNDERSTOOD}")
