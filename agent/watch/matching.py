"""Whether a story's titles hold a watch group's words: Chinese by substring, English by word."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .rules import WatchGroup

__all__ = ["group_matches", "story_text"]


def story_text(titles: Iterable[str]) -> str:
    """Every title of a story (each platform words it its own way, in its own language), folded once."""
    return "\n".join(unicodedata.normalize("NFKC", t).casefold() for t in titles)


def group_matches(group: WatchGroup, text: str, *, meant: bool = False) -> bool:
    """`text` from `story_text`: any plain word or `~` meaning (when there are any; `meant`: the ranker
    matched one of the group's meanings to this story), every `+` word, no `!` word."""
    if (group.any_of or group.meanings) and not (meant or any(t.found(text) for t in group.any_of)):
        return False
    if not all(t.found(text) for t in group.required):
        return False
    return not any(t.found(text) for t in group.excluded)
