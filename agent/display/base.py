"""The one interface every caption output implements."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ..captions.caption import Caption

__all__ = ["DEFAULT_SESSION", "CaptionFanout", "CaptionFeed", "Display"]

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


class CaptionFeed(Protocol):
    """One viewer's feed of caption messages (JSON-ready mappings); None once it is closed."""

    async def get(self) -> dict[str, Any] | None: ...

    def close(self) -> None: ...


class CaptionFanout(Display, Protocol):
    """The display that HUD pages watch: every caption of a session reaches each of its viewers.

    In process today (`HudHub`); shared by several instances, it is the scale-out seam for
    captions, since a page may be connected to another instance than the one that decided.
    """

    def subscribe(self, session_id: str | None = None) -> CaptionFeed: ...

    def subscriber_count(self, session_id: str | None = None) -> int: ...

    def last_caption(self, session_id: str | None = None) -> Caption | None: ...

    async def erase(self, session_id: str) -> None:
        """The session is erased: on every instance, end its viewers' feeds with an `erased` message,
        forget its last caption, refuse its captions from now on, and tell the `on_erase` listeners."""
        ...

    def on_erase(self, listener: Callable[[str], None]) -> None:
        """Call `listener(session_id)` on this instance whenever a session is erased on any."""
        ...

    def was_erased(self, session_id: str) -> bool:
        """Whether this instance heard of the session's erasure lately."""
        ...
