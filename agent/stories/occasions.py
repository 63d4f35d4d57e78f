"""Occasions: what many stories of one day share (a gala on a festival night, a holiday, a launch day).

A *story* is one event or meme; an *occasion* groups stories and is never itself the unit of
dedupe, captioning or answers. On a gala night the lists hold a dozen memes (a magic act, a
sketch, a host's slip, a song), each its own story, and the gala's name in a fifth of the
headlines: that word is the occasion's (`stories.is_occasion`), so it links no two items, and the
stories whose members carry it are grouped under it here (docs/stories.md: the night measured).

Pure: `find_occasions` reads the stories and which of their members' headline terms are an
occasion's word; `StoryIndex.occasions` passes what it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from agent.models import Topic, stable_id
from agent.stories.linking import Story

__all__ = ["MIN_STORIES", "Occasion", "find_occasions", "occasion_of"]

MIN_STORIES = 2  # an occasion groups stories: a word carried by one story's members only is that story's


@dataclass(frozen=True)
class Occasion:
    """An occasion of the held lists: its word, a title to show, and its stories, hottest first."""

    id: str  # "o-" + a hash of its word: stable across fetch cycles while the word is the occasion's
    word: str  # the occasion's word as the headlines write it
    title: str  # the held headline that says the occasion and least else (the gala's name alone)
    story_ids: tuple[str, ...]

    def public(self, stories: Iterable[Story] = ()) -> dict[str, object]:
        """Its id, title and word, and its stories among `stories` (id, title, platforms)."""
        mine = set(self.story_ids)
        return {"id": self.id, "title": self.title, "word": self.word,
                "stories": [{"id": s.id, "title": s.title, "platforms": list(s.platforms)}
                            for s in stories if s.id in mine]}


def find_occasions(stories: Sequence[Story], words: Iterable[str], terms_of: Callable[[Topic], frozenset[str]],
                   other_terms: Callable[[Topic], int]) -> list[Occasion]:
    """The occasions of `stories` (hottest first): for each occasion word (`words`, most carried
    first), the stories with a member whose headline carries it (`terms_of`), when there are at
    least `MIN_STORIES`. A story sits under one occasion, the first word that takes it.
    `other_terms(topic)` counts a headline's terms that are not an occasion's: the title is the
    carrier with the fewest, so the occasion is named by a headline that says only it."""
    taken: set[str] = set()
    out: list[Occasion] = []
    for word in words:
        holding = [s for s in stories if s.id not in taken and any(word in terms_of(m) for m in s.members)]
        if len(holding) < MIN_STORIES:
            continue
        carriers = [m for s in holding for m in s.members if word in terms_of(m)]
        # fewest other terms, then the hottest story's first (stories come hottest first)
        title = min(enumerate(carriers), key=lambda c: (other_terms(c[1]), c[0]))[1].title
        taken.update(s.id for s in holding)
        out.append(Occasion("o-" + stable_id(word)[:16], word, title, tuple(s.id for s in holding)))
    return out


def occasion_of(occasions: Sequence[Occasion]) -> dict[str, Occasion]:
    """`story id → its occasion`, for readers that start from a topic's story."""
    return {sid: o for o in occasions for sid in o.story_ids}
