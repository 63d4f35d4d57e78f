"""Periods said in words, read as a person means them (UTC days, weeks from Monday)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.answers.queries.periods import parse_period
from agent.errors import InputError

NOW = datetime(2024, 2, 9, 21, 30, tzinfo=UTC)  # a Friday evening


@pytest.mark.parametrize(("said", "since", "until"), [
    ("today", datetime(2024, 2, 9, tzinfo=UTC), NOW),
    ("昨天", datetime(2024, 2, 8, tzinfo=UTC), datetime(2024, 2, 9, tzinfo=UTC)),
    ("本周", datetime(2024, 2, 5, tzinfo=UTC), NOW),
    ("Last week", datetime(2024, 1, 29, tzinfo=UTC), datetime(2024, 2, 5, tzinfo=UTC)),
    ("本月", datetime(2024, 2, 1, tzinfo=UTC), NOW),
    ("last 7 days", datetime(2024, 2, 2, 21, 30, tzinfo=UTC), NOW),
    ("最近3天", datetime(2024, 2, 6, 21, 30, tzinfo=UTC), NOW),
    ("过去24小时", datetime(2024, 2, 8, 21, 30, tzinfo=UTC), NOW),
    ("2024-02-09", datetime(2024, 2, 9, tzinfo=UTC), datetime(2024, 2, 10, tzinfo=UTC)),
    ("2024-02-01..2024-02-09", datetime(2024, 2, 1, tzinfo=UTC), datetime(2024, 2, 10, tzinfo=UTC)),
])
def test_a_period_in_words(said: str, since: datetime, until: datetime) -> None:
    period = parse_period(said, now=NOW)
    assert (period.since, period.until) == (since, until)


@pytest.mark.parametrize("said", ["next tuesday", "2024-02-30", "2024-02-09..2024-01-01", "last 9999 days", ""])
def test_what_is_not_a_period_is_one_clear_line(said: str) -> None:
    with pytest.raises(InputError) as err:
        parse_period(said, now=NOW)
    assert str(err.value).startswith("period:") and "\n" not in str(err.value)
