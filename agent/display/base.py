"""The one interface every caption output implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..captions.caption import Caption

__all__ = ["DEFAULT_SESSION", "Display"]

DEFAULT_SESSION = "default"
"""Session used for captions without a `session_id` (single-user setups)."""


@runtime_checkable
class Display(Protocol):
    """Somewhere captions go: a terminal, a web HUD, a webhook, MentraOS glasses.

    `show` must return quickly (adapters with slow I/O queue and deliver in the
    background); it returns False when the caption was not accepted (expired,
    no such session). An adapter never shows a caption past its TTL.
    """

    name: str

    async def show(self, caption: Caption) -> bool: ...

    async def clear(self, session_id: str | None = None) -> None: ...

    async def aclose(self) -> None: ...
