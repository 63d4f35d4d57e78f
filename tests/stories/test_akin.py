"""Two entries of one list on one meme: no story of their own, but each says what the other is.

A list often keeps a quip and what happened as two entries; the caption of one reads the other
(captions/gist.py). Synthetic headlines.
"""

from __future__ import annotations

from agent.captions.composer import CaptionComposer
from agent.ranking import Ranked
from agent.store import StoredTopic
from agent.stories.grouping import StoryIndex
from agent.stories.published import StoryView
from tests.stories.helpers import topic

FILLER = [topic("douyin", "3", "高速堵车十公里", rank=4), topic("douyin", "4", "今年的烟花特别美", rank=5),
          topic("weibo", "5", "油价下调", rank=1), topic("weibo", "6", "暴雪预警发布", rank=2)]
SHORT = topic("douyin", "1", "山城大桥垮塌", rank=3)
TOLD = topic("douyin", "2", "山城大桥垮塌致3人受伤", rank=9)


BY_ID = {t.id: t for t in [SHORT, TOLD, *FILLER]}


def titles(view: StoryView, tid: str) -> list[str]:
    return [BY_ID[t].title for t in view.akin.get(tid, ())]


def test_two_entries_of_one_list_linked_strongly_are_akin_and_no_story() -> None:
    index = StoryIndex()
    stories = index.update([SHORT, TOLD, *FILLER])
    assert not any({SHORT.id, TOLD.id} <= set(s.member_ids) for s in stories)  # look-alikes of one list stay apart
    assert titles(index.published, SHORT.id) == [TOLD.title]
    assert titles(index.published, TOLD.id) == [SHORT.title]
    assert titles(index.published, "douyin:3") == []


def test_a_weak_link_or_two_lists_make_nothing_akin() -> None:
    weak = [topic("douyin", "1", "林夏接仙气", rank=3), topic("douyin", "2", "林夏第8次登台", rank=9)]
    index = StoryIndex()
    index.update([*weak, *FILLER])
    assert not index.published.akin
    other_list = topic("weibo", "7", "山城大桥垮塌致3人受伤", rank=3)
    index = StoryIndex()
    index.update([SHORT, other_list, *FILLER])
    assert not index.published.akin  # a link across lists is the story's, not akin


def test_an_item_gone_from_its_list_is_akin_to_nothing() -> None:
    index = StoryIndex()
    index.update([SHORT, TOLD, *FILLER])
    index.update([SHORT, *FILLER])
    assert not index.published.akin
    index.update([SHORT, TOLD, *FILLER])
    assert titles(index.published, SHORT.id) == [TOLD.title]


def test_the_caption_of_a_lone_entry_ends_on_what_its_akin_entry_says() -> None:
    index = StoryIndex()
    index.update([SHORT, TOLD, *FILLER])

    class Lookup:  # what the topic index hands the composer, read from this story index alone
        clusters = index.published.story_of
        stored = {t.id: StoredTopic(topic=t, first_seen="", last_seen="", velocity=None, observations=1)
                  for t in BY_ID.values()}
        repeated_openers: frozenset[tuple[str, str]] = frozenset()
        occasions = index.published.occasions
        akin = index.published.akin

    caption = CaptionComposer(Lookup()).compose(Ranked(id=SHORT.id, topic=SHORT, score=0.9, components={}),
                                                profile="hud-web")
    assert caption.lines[0] == SHORT.title
    assert "致3人受伤" in caption.lines[-1], caption.lines
