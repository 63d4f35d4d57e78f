"""The story view an update publishes: one frozen value every surface reads.

`StoryIndex.update` (and `follow`) makes it once per update and replaces one reference
(`StoryIndex.published`); readers never see half an update, and nothing is derived again downstream:
the digest's occasions, the caption's platform line and the live dedupe read the same stories,
occasions, fair heat and places.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agent.stories.occasions import Occasion
from agent.stories.story import Story

__all__ = ["StoryView"]


@dataclass(frozen=True)
class StoryView:
    """The stories of one update: each story (its fair heat is `Story.score`), each topic's story, each
    story's members, the occasions they sit under, and the items of one list that say what another is."""

    stories: tuple[Story, ...] = ()  # each story once, hottest first by fair heat
    story_of: Mapping[str, Story] = field(default_factory=dict)  # topic id -> its story
    members: Mapping[str, frozenset[str]] = field(default_factory=dict)  # story id -> its topic ids
    occasions: tuple[Occasion, ...] = ()  # what many stories share (a gala night), most carried first
    occasion_of: Mapping[str, Occasion] = field(default_factory=dict)  # story id -> its occasion
    # topic id -> the ids of the items of its own list linked to it strongly, strongest first (`StoryIndex._akin`)
    akin: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def places(self, story: Story) -> dict[str, int | None]:
        """One place per platform: the best rank of the story's members on each list, hottest list first."""
        out: dict[str, int | None] = dict.fromkeys(story.platforms)
        for member in story.members:
            best = out.get(member.source)
            if member.rank is not None and (best is None or member.rank < best):
                out[member.source] = member.rank
        return out
