"""The story view an update publishes: one frozen value with the stories the update returned, each
topic's story, the occasions they sit under and one place per platform."""

from __future__ import annotations

import dataclasses

import pytest

from agent.stories.grouping import StoryIndex
from tests.stories.helpers import topic
from tests.stories.test_occasions import night


def test_an_update_publishes_its_stories_and_occasions_whole() -> None:
    index = StoryIndex()
    stories = index.update(night())
    view = index.published
    assert view.stories == tuple(stories)
    assert all(view.story_of[m] is s for s in stories for m in s.member_ids)
    assert all(view.members[s.id] == frozenset(s.member_ids) for s in stories)
    (gala,) = view.occasions
    assert gala.word == "春晚" and all(view.occasion_of[sid] is gala for sid in gala.story_ids)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.stories = ()  # type: ignore[misc]


def test_a_later_update_leaves_the_view_a_reader_holds_as_it_was() -> None:
    index = StoryIndex()
    topics = night()
    index.update(topics)
    held = index.published
    index.update([*topics, topic("weibo", "w9", "春晚魔术师撕扑克牌再现", rank=90, heat=1.0)])
    assert "weibo:w9" not in held.story_of and "weibo:w9" in index.published.story_of


def test_a_story_has_one_place_per_platform() -> None:
    index = StoryIndex()
    index.update(night())
    view = index.published
    story = view.story_of["weibo:w1"]  # the magic act: first on Weibo, second on Douyin
    assert view.places(story) == {"weibo": 1, "douyin": 2}
    assert list(view.places(story)) == list(story.platforms)
