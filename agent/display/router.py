"""Where a caption or a digest goes: the configured displays, by name.

Captions go to every `Display`; a digest goes only to displays that are also a
`DigestSink` (the webhook today). Each adapter delivers only what concerns it
(the HUD and MentraOS show a caption only on the session it names).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ..captions.caption import Caption
from .base import Display

__all__ = ["SESSION_DISPLAYS", "DigestSink", "DisplayRouter"]

log = logging.getLogger("trendlens.display")

SESSION_DISPLAYS = "session"
"""The display name meaning "every configured display"."""


@runtime_checkable
class DigestSink(Protocol):
    """A display that also takes the daily digest (a JSON-ready mapping)."""

    async def send_digest(self, digest: dict[str, Any], *, ttl_s: float = 3600.0) -> bool: ...


class DisplayRouter:
    def __init__(self, displays: Mapping[str, Display]) -> None:
        self.displays: dict[str, Display] = dict(displays)

    def get(self, name: str) -> Display | None:
        return self.displays.get(name)

    def _targets(self, display: str) -> list[tuple[str, Display]]:
        names = list(self.displays) if display == SESSION_DISPLAYS else [display]
        # a display not configured here has nothing to deliver to: not an error
        return [(n, self.displays[n]) for n in names if n in self.displays]

    async def show(self, caption: Caption, *, display: str = SESSION_DISPLAYS) -> list[str]:
        """Show a caption; returns the names of the displays that accepted it."""
        return [name for name, target in self._targets(display) if await target.show(caption)]

    async def send_digest(self, digest: Any, *, display: str = SESSION_DISPLAYS) -> list[str]:
        """Send a digest (a `Digest` or a mapping) to every digest sink among the named displays."""
        payload = digest.public() if hasattr(digest, "public") else digest
        return [name for name, target in self._targets(display)
                if isinstance(target, DigestSink) and await target.send_digest(payload)]

    async def push(self, item: Any, *, display: str = SESSION_DISPLAYS) -> list[str]:
        """A caption to `show`, anything else to `send_digest`."""
        if isinstance(item, Caption):
            return await self.show(item, display=display)
        return await self.send_digest(item, display=display)

    async def aclose(self) -> None:
        for display in self.displays.values():
            try:
                await display.aclose()
            except Exception as exc:  # noqa: BLE001 - closing must go on for the others
                log.warning("closing display %s: %s", getattr(display, "name", "?"), exc)
