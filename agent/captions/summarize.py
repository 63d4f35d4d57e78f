"""Optional one-line LLM gloss of a topic via an OpenAI-compatible `/chat/completions`.

Off by default: callers use it only when a model endpoint is configured, and on
any timeout, HTTP error or odd answer it returns None so the template caption
goes out instead — a caption late or missing is worse than a plain one.
"""

from __future__ import annotations

import logging

import httpx

from agent.engine.llm import LlmConfig, LlmFailed, complete

from .graphemes import clean_text

__all__ = ["summarize"]

log = logging.getLogger(__name__)

_SYSTEM = (
    "You write captions for smart glasses. In one short sentence of at most {max_chars} characters, "
    "say what the trending topic is about and why people are talking about it. Answer in the "
    "language of the topic title. No preamble, no quotes, no hashtags."
)


async def summarize(
    topic_title: str,
    context: str,
    *,
    client: httpx.AsyncClient,
    base_url: str,
    api_key: str | None,
    model: str,
    timeout_s: float = 3.0,
    max_chars: int = 60,
) -> str | None:
    """A one-sentence gloss of `topic_title` given the conversation `context`, or None."""
    messages = [
        {"role": "system", "content": _SYSTEM.format(max_chars=max_chars)},
        {"role": "user", "content": f"Topic: {topic_title}\nConversation: {context}"},
    ]
    llm = LlmConfig(base_url=base_url, model=model, api_key=api_key, timeout_s=timeout_s)
    try:
        content = await complete(client, llm, messages, max_tokens=120, temperature=0.3)
    except LlmFailed as exc:
        log.info("summarizer unavailable (%s)", exc)
        return None
    text = clean_text(content).strip("\"'“”‘’ ")
    # Far longer than asked means the model rambled: the template reads better.
    if not text or len(text) > 3 * max_chars:
        return None
    return text
