"""A `/regex/` word or a history search a person wrote cannot hold the service: bounded in time, the cut said."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest

from agent.answers.queries.history import search_history
from agent.collect.fetching import SourceOutcome
from agent.errors import ConfigError
from agent.models import Topic
from agent.watch import group_matches, parse_watch
from agent.watch.matching import story_text
from agent.watch.rules import SlowPattern

SLOW = "/(a|aa|aaa)+$/"  # backtracks exponentially in `re` and in `regex` alike
TITLE = "a" * 60 + "!"


def test_a_catastrophic_regex_gives_up_within_its_deadline_and_then_matches_nothing() -> None:
    [group] = parse_watch(SLOW)
    start = time.monotonic()
    with pytest.raises(SlowPattern, match="took longer than"):
        group_matches(group, story_text([TITLE]))
    assert not group_matches(group, story_text([TITLE]))  # from then on: no match, at once
    assert time.monotonic() - start < 1


@pytest.mark.parametrize("word", ["/a{4294967295}/", "/[unclosed/", "/(?<x/", "/(a{65535}){65535}/",
                                  "/((a{100}){100}){100}/"])
def test_a_regex_that_cannot_compile_is_a_config_error(word: str) -> None:
    with pytest.raises(ConfigError, match="regular expression"):
        parse_watch(word)


def test_words_past_the_thirtieth_are_refused_not_dropped() -> None:
    with pytest.raises(ConfigError, match="at most 30"):
        parse_watch(" ".join(f"w{n}" for n in range(31)))


# the searches below read "last 24 hours", not "today": stored a minute before midnight, "today" at `now`
# (a minute on) is the next day and holds nothing to search
def _stored(store, titles: list[str]) -> None:
    topics = [Topic(source="weibo", item_id=str(n), title=t, rank=n + 1) for n, t in enumerate(titles)]
    store.record_cycle([SourceOutcome(source="weibo", topics=topics, elapsed_s=0.1)])


def test_a_history_search_with_a_catastrophic_regex_answers_at_once_and_says_where_it_stopped(store) -> None:
    _stored(store, ["机器人扭秧歌", TITLE, TITLE + "b"])
    now = datetime.now(UTC) + timedelta(minutes=1)

    start = time.monotonic()
    _, found = asyncio.run(search_history(store, SLOW, "last 24 hours", now=now))
    took = time.monotonic() - start
    assert took < 2.5
    assert found == [] and found.cut and "took longer than" in found.cut  # type: ignore[attr-defined]


def test_a_history_search_past_its_budget_says_how_much_it_searched(store) -> None:
    _stored(store, [f"标题{n}" for n in range(300)])
    now = datetime.now(UTC) + timedelta(minutes=1)
    _, found = asyncio.run(search_history(store, "机器人", "last 24 hours", now=now, budget_s=0))
    assert found == [] and found.cut and "of 300 items searched" in found.cut


def test_a_period_past_the_last_date_is_an_input_error(store) -> None:
    from agent.errors import InputError

    with pytest.raises(InputError, match="period"):
        asyncio.run(search_history(store, "机器人", "9999-12-31", now=datetime.now(UTC)))


def test_one_owners_words_take_at_most_their_budget_of_a_check(store, caplog) -> None:
    from agent.notify import Notifier
    from agent.watch import Watcher, WatchLists
    from agent.watch.watcher import OWNER_SCAN_S

    class Index:
        def __init__(self) -> None:
            titles = [f"{'a' * 21}!{n}" for n in range(400)]  # about 10 ms a title for `(a|aa)+$`
            self.stored = {f"weibo:{n}": type("Stored", (), {"topic": Topic(source="weibo", item_id=str(n),
                                                                              title=t, rank=n + 1)})()
                           for n, t in enumerate(titles)}

        def story_key(self, topic_id: str) -> str:
            return topic_id

    # twelve words, each slow but under the deadline on every title, would take about a minute unbounded
    words = "; ".join(["/(a|aa)+$/"] * 12)
    watcher = Watcher(Index(), Notifier([]), WatchLists("", store=store), store)  # type: ignore[arg-type]
    watcher.lists.set("k1", words, [])
    start = time.monotonic()
    watcher.scan()
    assert time.monotonic() - start < OWNER_SCAN_S + 1.5
    assert "matching stopped" in caplog.text
