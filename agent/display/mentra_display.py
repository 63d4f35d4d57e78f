"""MentraOS glasses as a display: a caption → the `display_event` that fits the glasses, sent on
the session's WebSocket. The connections themselves belong to `MentraApp` (mentra.py)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from ..captions.caption import Caption
from ..captions.profiles import get_profile

__all__ = ["MentraDisplay"]


class _Config(Protocol):
    @property
    def package_name(self) -> str: ...

    @property
    def layout(self) -> str: ...


class _Link(Protocol):
    """One connected glasses session, as the display sees it."""

    @property
    def profile(self) -> str: ...

    async def send(self, event: dict[str, Any]) -> bool: ...


class _Links(Protocol):
    @property
    def config(self) -> _Config: ...

    @property
    def sessions(self) -> Mapping[str, _Link]: ...


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class MentraDisplay:
    name = "mentra"

    def __init__(self, app: _Links) -> None:
        self.app = app  # the MentraApp: its sessions are the connected glasses

    def layout_event(self, session_id: str, layout: dict[str, Any], duration_ms: int) -> dict[str, Any]:
        return {
            "type": "display_event",
            "packageName": self.app.config.package_name,
            "sessionId": session_id,
            "view": "main",
            "layout": layout,
            "durationMs": duration_ms,
            "timestamp": _now_iso(),
        }

    def display_event(self, session_id: str, caption: Caption, *, profile: str | None = None) -> dict[str, Any]:
        """The `display_event` for a caption, shaped so that all of it shows on `profile`.

        A card renders as title, blank line, body on one page (the G1 does exactly
        that), so a card is used only when those fit the profile's lines; the G1
        always gets a text wall, which uses all five of its lines.
        """
        lines = list(caption.lines) or [caption.text]
        name = profile or caption.profile
        max_lines = get_profile(name).max_lines if name else len(lines) + 1
        card_fits = 1 < len(lines) and len(lines) + 1 <= max_lines
        if self.app.config.layout == "reference_card" and name != "even-g1" and card_fits:
            layout = {"layoutType": "reference_card", "title": lines[0], "text": "\n".join(lines[1:])}
        else:
            layout = {"layoutType": "text_wall", "text": "\n".join(lines)}
        return self.layout_event(session_id, layout, caption.ttl_ms)

    async def send(self, session_id: str, caption: Caption) -> bool:
        """Show a caption on one session's glasses, whatever session the caption names."""
        link = self.app.sessions.get(session_id)
        if link is None:
            return False
        return await link.send(self.display_event(session_id, caption, profile=link.profile))

    async def show(self, caption: Caption) -> bool:
        """Send to the caption's session, or to every session when it names none."""
        if caption.expired():
            return False
        if caption.session_id is not None:
            return await self.send(caption.session_id, caption)
        results = [await self.send(sid, caption) for sid in tuple(self.app.sessions)]
        return any(results)

    async def clear(self, session_id: str | None = None) -> None:
        targets: list[str] = list(self.app.sessions) if session_id is None else [session_id]
        for sid in targets:
            link = self.app.sessions.get(sid)
            if link is not None:
                await link.send(self.layout_event(sid, {"layoutType": "text_wall", "text": ""}, 0))

    async def aclose(self) -> None:
        """Nothing of its own to close: the connections are the app's (`MentraApp.aclose`)."""
