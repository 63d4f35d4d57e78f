"""Topics and checks the story tests share: the link rule's (test_linking.py) and the grouping's
(test_grouping.py)."""

from __future__ import annotations

from agent.models import Topic
from harness.paths import SHARED
from harness.required import needs_shared

__all__ = ["SHARED", "needs_days", "together", "topic"]

needs_days = needs_shared("days")


def topic(source: str, item_id: str, title: str, *, rank: int | None = None, heat: float | None = None,
          summary: str | None = None) -> Topic:
    return Topic(source=source, item_id=item_id, title=title, rank=rank, heat=heat, summary=summary)


def together(clusters, a: str, b: str) -> bool:
    return any({a, b} <= set(c.member_ids) for c in clusters)
