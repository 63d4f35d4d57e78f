"""What the live tests share: two stories of the demo snapshot to say one after the other."""

from __future__ import annotations

__all__ = ["two_stories"]


def two_stories(runtime) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two titles of different stories, each long enough to be decided on: (story key, title) each."""
    titles: list[tuple[str, str]] = []
    for s in runtime.index.stored.values():
        key = runtime.index.story_key(s.topic.id)
        if len(s.topic.title) >= 8 and key not in {k for k, _ in titles}:
            titles.append((key, s.topic.title))
    return titles[0], titles[1]

