"""What a story is: one event or meme on at least two platforms, its members hottest first, and
the links that grew it (`Link`: the phrases two members share and how likely they are one story).

A value every surface reads (the digest, captions, chat, MCP, the watcher); how links are made is
`linking.py`, how stories grow is `grouping.py`, how they are published is `published.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.models import Topic

__all__ = ["Link", "Story"]


@dataclass(frozen=True)
class Link:
    """Why two members are one story: the phrases they share and how likely they are one story."""

    a: str
    b: str
    shared: tuple[str, ...]  # phrases of the headlines both hold (辽阳, 饭店火灾, 3死)
    probability: float
    overlap: float  # IDF-weighted overlap of the headlines' terms
    cosine: float | None  # calibrated dense similarity, when there are vectors
    by: Literal["pair", "story name"] = "pair"  # the link rule, or the story's name (`joins_by_name`)

    def public(self) -> dict[str, object]:
        return {"a": self.a, "b": self.b, "shared": list(self.shared), "probability": round(self.probability, 3),
                "overlap": round(self.overlap, 3),
                "cosine": None if self.cosine is None else round(self.cosine, 3), "by": self.by}


_NUMBER = re.compile(r"\d")
_LATIN = re.compile(r"[a-z]")


@dataclass(frozen=True)
class Story:
    """One story: its members hottest first, on the platforms it spans."""

    id: str
    members: tuple[Topic, ...]
    heat: float  # sum of member raw heats (None counts as 0): kept for display only
    platforms: tuple[str, ...]  # hottest first by each platform's best normalised heat
    score: float = 0.0  # fair heat: each platform's best normalised heat, summed (ranking/fair_heat.py)
    links: tuple[Link, ...] = ()  # the links that grew it, strongest first

    @property
    def title(self) -> str:
        """The hottest member's title (the first member's when none has heat)."""
        return self.members[0].title

    @property
    def member_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.members)

    def shared(self) -> dict[str, list[str]]:
        """The phrases its links rest on, as a reader sorts them: figures (22死, 16.9元), names
        (SU7, 金秀贤: Latin or three to five characters), wording told alike (six or more), words."""
        seen: dict[str, int] = {}
        for link_ in self.links:
            for phrase in link_.shared:
                seen[phrase] = seen.get(phrase, 0) + 1
        ordered = sorted(seen, key=lambda p: (-seen[p], -len(p), p))
        out: dict[str, list[str]] = {"numbers": [], "names": [], "wording": [], "words": []}
        for phrase in ordered:
            compact = phrase.replace(" ", "")
            if _LATIN.search(compact) and len(compact) <= 6:
                out["names"].append(phrase)  # su7, hpv: a model or a name, digits or not
            elif _NUMBER.search(compact) and len(compact) <= 6:
                out["numbers"].append(phrase)
            elif len(compact) >= 6:
                out["wording"].append(phrase)
            elif _LATIN.search(compact) or len(compact) >= 3:
                out["names"].append(phrase)
            else:
                out["words"].append(phrase)
        return out
