"""The optional LLM words a grounded answer; it never adds facts.

It gets the template's answer as its only facts and the rules of the style. Any
failure or timeout keeps the template. On the glasses its output still loses links.
Titles stay as the platform wrote them; a title in another language than the asker's
gets a short gloss in the asker's language beside it (an LLM is the only translator here).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.answers.chat.answers import Style
from agent.engine.llm import LlmFailed, complete
from agent.models import detect_lang

if TYPE_CHECKING:
    from agent.answers.chat.deps import ChatDeps

__all__ = ["llm_wording"]

log = logging.getLogger("trendlens.chat")

_LINK = re.compile(r"\s*\(?https?://\S+\)?")


def _gloss_rule(titles: Sequence[str], lang: str) -> str:
    """Asks for a gloss when a title is in another language than the asker's, and only then."""
    asker = "Chinese" if lang == "zh" else "English"
    if not any((detect_lang(t) == "zh") != (lang == "zh") for t in titles if detect_lang(t) != "other"):
        return ""
    return (f" After each title that is not in {asker}, add a short {asker} gloss of it in parentheses; "
            "the gloss translates the title and adds nothing to it.")


async def llm_wording(deps: ChatDeps, question: str, grounded: str, style: Style, lang: str, *,
                      titles: Sequence[str] = ()) -> str | None:
    """The LLM's wording of `grounded`, or None (not configured, failed, slow, empty)."""
    if deps.llm is None:
        return None
    llm, client = deps.llm
    rule = ("Answer in at most two short sentences for a smart-glasses display and a voice: no links, "
            "at most two items, platforms named in words." if style == "glasses"
            else "Answer briefly; keep every platform, rank, heat figure and link you use exactly as given.")
    messages = [
        {"role": "system", "content": "You answer questions about trending topics using ONLY these facts:\n"
                                      f"{grounded}\n{rule} Keep every title exactly as written."
                                      f"{_gloss_rule(titles, lang)} "
                                      f"Reply in {'Chinese' if lang == 'zh' else 'English'}."},
        {"role": "user", "content": question},
    ]
    try:
        content = (await complete(client, llm, messages, temperature=0.3)).strip()
    except LlmFailed as exc:
        log.warning("LLM wording failed (%s); answering from the template", exc)
        return None
    if style == "glasses":
        content = _LINK.sub("", content).strip()
    return content or None
