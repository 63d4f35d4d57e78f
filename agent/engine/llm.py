"""The optional LLM: its configuration and the one call to an OpenAI-compatible `/chat/completions`.

Caption glosses (`captions/summarize.py`) and chat wording (`answers/chat/wording.py`) both ask through
`complete`; each decides what a failure means for it (both fall back to their template).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from agent.settings import Settings

__all__ = ["LlmConfig", "LlmFailed", "complete"]


@dataclass(frozen=True)
class LlmConfig:
    """The OpenAI-compatible endpoint used for glosses and wording."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 4.0

    @classmethod
    def from_settings(cls, settings: Settings) -> LlmConfig | None:
        """The configured endpoint (`TRENDLENS_LLM_*`), or None when no LLM is configured."""
        options = settings.llm
        if not options.base_url:
            return None
        return cls(base_url=options.base_url, model=options.model,
                   api_key=options.api_key.get_secret_value() if options.api_key else None,
                   timeout_s=options.timeout_s)


class LlmFailed(Exception):
    """The LLM gave no usable answer: unreachable, slow, an HTTP error or an unexpected body.

    Never reaches a user: every caller keeps its template answer instead."""


async def complete(client: httpx.AsyncClient, llm: LlmConfig, messages: list[dict[str, str]], *,
                   timeout_s: float | None = None, **options: Any) -> str:
    """The first choice's text for `messages` (`options`: temperature, max_tokens …); LlmFailed otherwise."""
    timeout_s = llm.timeout_s if timeout_s is None else timeout_s
    headers = {"Authorization": f"Bearer {llm.api_key}"} if llm.api_key else {}
    try:
        # wait_for bounds the whole exchange; httpx's timeout alone is per phase.
        response = await asyncio.wait_for(
            client.post(llm.base_url.rstrip("/") + "/chat/completions", headers=headers,
                        json={"model": llm.model, "messages": messages, **options}, timeout=timeout_s),
            timeout_s)
    except (httpx.HTTPError, TimeoutError) as exc:
        raise LlmFailed(f"{type(exc).__name__}: {exc}") from exc
    if response.status_code != 200:
        raise LlmFailed(f"HTTP {response.status_code}")
    try:
        content = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LlmFailed("an unexpected body") from exc
    if not isinstance(content, str):
        raise LlmFailed("an unexpected body")
    return content
