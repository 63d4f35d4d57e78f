"""The optional LLM words a grounded answer; it never adds facts.

It gets the template's answer as its only facts and the rules of the style. Any
failure or timeout keeps the template. On the glasses its output still loses links.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import httpx

from .answers import Style

if TYPE_CHECKING:
    from ..runtime import Runtime

__all__ = ["llm_wording"]

log = logging.getLogger("trendlens.chat")

_LINK = re.compile(r"\s*\(?https?://\S+\)?")


async def llm_wording(runtime: Runtime, question: str, grounded: str, style: Style, lang: str) -> str | None:
    """The LLM's wording of `grounded`, or None (not configured, failed, slow, empty)."""
    s = runtime.settings
    client = runtime.llm_client
    if not s.llm_base_url or client is None:
        return None
    rule = ("Answer in at most two short sentences for a smart-glasses display and a voice: no links, "
            "at most two items, platforms named in words." if style == "glasses"
            else "Answer briefly; keep every platform, rank, heat figure and link you use exactly as given.")
    messages = [
        {"role": "system", "content": "You answer questions about trending topics using ONLY these facts:\n"
                                      f"{grounded}\n{rule} Keep every title exactly as written. "
                                      f"Reply in {'Chinese' if lang == 'zh' else 'English'}."},
        {"role": "user", "content": question},
    ]
    headers = {"Authorization": f"Bearer {s.llm_api_key.get_secret_value()}"} if s.llm_api_key else {}
    try:
        resp = await client.post(s.llm_base_url.rstrip("/") + "/chat/completions", headers=headers,
                                 json={"model": s.llm_model, "messages": messages, "temperature": 0.3},
                                 timeout=s.llm_timeout_s)
        resp.raise_for_status()
        content = str(resp.json()["choices"][0]["message"]["content"]).strip()
    except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
        log.warning("LLM wording failed (%s); answering from the template", type(exc).__name__)
        return None
    if style == "glasses":
        content = _LINK.sub("", content).strip()
    return content or None
