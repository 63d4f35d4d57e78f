"""What a push says: the digest's top stories, or one watch alert, as a title and short lines.

Each story is one line: its title, where it is listed and at which rank, and its link, so a phone
notification reads without opening anything. Markdown goes to the services that render it; the
others get the same lines as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.answers.digest import Digest

from ..platforms import platform_name

__all__ = ["Message", "Story", "alert_message", "digest_message"]

TITLE_CHARS = 80  # a phone shows one line of a notification's lines before "…"


@dataclass(frozen=True, kw_only=True)
class Story:
    """One story as a push names it: its title, its best places (source, rank), its link."""

    title: str
    places: tuple[tuple[str, int | None], ...]
    url: str | None


@dataclass(frozen=True, kw_only=True)
class Message:
    title: str
    markdown: str
    text: str


def _where(story: Story, lang: str) -> str:
    return " · ".join(platform_name(s, lang) + (f" #{r}" if r else "") for s, r in story.places[:3])


def _lines(stories: list[Story], lang: str) -> tuple[list[str], list[str]]:
    md, text = [], []
    for n, story in enumerate(stories, 1):
        title = story.title if len(story.title) <= TITLE_CHARS else story.title[:TITLE_CHARS - 1] + "…"
        where = _where(story, lang)
        # Markdown's link text must not close early: brackets in a title are escaped
        shown = title.replace("[", "\\[").replace("]", "\\]")
        md.append(f"{n}. [{shown}]({story.url}) — {where}" if story.url else f"{n}. {shown} — {where}")
        text.append(f"{n}. {title} — {where}" + (f"\n   {story.url}" if story.url else ""))
    return md, text


def digest_message(digest: Digest, *, limit: int = 10, lang: str = "zh") -> Message:
    """The digest's top `limit` stories, one line each."""
    stories = [Story(title=item.title,
                     places=tuple((p["source"], p.get("rank")) for p in item.platforms),
                     url=next((p["url"] for p in item.platforms if p.get("url")), None))
               for item in digest.items[:limit]]
    title = ("热榜摘要" if lang == "zh" else "Trending digest") + f" · {digest.generated_at[:16].replace('T', ' ')} UTC"
    if not stories:
        empty = "暂无新的热点。" if lang == "zh" else "Nothing new is trending."
        return Message(title=title, markdown=empty, text=empty)
    md, text = _lines(stories, lang)
    return Message(title=title, markdown="\n".join(md), text="\n".join(text))


def alert_message(story: Story, *, group: str, lang: str = "zh", again: bool = False) -> Message:
    """One watch alert: the group that matched, then the story's line."""
    if lang == "zh":
        title = f"关注「{group}」" + ("：上榜平台增多" if again else "：新热点")
    else:
        title = f"Watching “{group}”" + (": now on more platforms" if again else ": new story")
    md, text = _lines([story], lang)
    return Message(title=title, markdown=md[0].removeprefix("1. "), text=text[0].removeprefix("1. "))
