"""MentraOS glasses as a display: a caption → the `display_event` that fits the glasses, sent on
the session's WebSocket. The connections themselves belong to `MentraApp` (mentra.py).

Which layout (docs/glasses/mentraos.md says why):

- `reference_card` (title, then the meta line as its text) where the card fits: the glasses draw
  it as title, blank line, text, so it needs a line more than the caption has. Never on the G1,
  whose card is that same text on one page and gains nothing over a wall.
- `double_text_wall` where the card does not fit: the headline on top, the meta line below, apart
  without the blank line the card spends.
- `text_wall` on the G1, for one-line captions, and when the app is configured for walls.
- `bitmap_view` where the profile's font has no CJK glyphs and the glasses take bitmaps
  (`capabilities.display.canDisplayBitmap`): the caption drawn in their resolution (bitmaps.py).

Every caption is fitted to `capabilities.display.maxTextLines` where the glasses report it (the
Z100 reports 7, our profile keeps 5: the fewer wins). The caption's story also goes to the
dashboard as a `dashboard_card` (platform | headline), which stays there between captions.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from ..captions.caption import Caption
from ..captions.fit import fit_text
from ..captions.profiles import DisplayProfile, get_profile
from ..errors import ConfigError
from ..platforms import caption_label
from .bitmaps import bmp_base64, needs_bitmap, render_caption
from .mentra_device import DisplayCaps

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

    @property
    def caps(self) -> DisplayCaps | None: ...

    async def send(self, event: dict[str, Any]) -> bool: ...


class _Links(Protocol):
    @property
    def config(self) -> _Config: ...

    @property
    def sessions(self) -> Mapping[str, _Link]: ...


def _now_iso() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _joined(a: str, b: str) -> str:
    """Two fitted lines as one text again: no space between two CJK lines' characters."""
    wide = needs_bitmap(a[-1:] + b[:1], cjk=False)
    return a + ("" if wide else " ") + b


def fit_lines(lines: list[str], profile: DisplayProfile, max_lines: int) -> list[str]:
    """The caption's lines in at most `max_lines`: the headline shortened (ending "…"), the meta
    line (the last, platforms and heat) kept while two lines are allowed."""
    if len(lines) <= max_lines:
        return lines
    if max_lines <= 1:
        return fit_text(_joined(lines[0], lines[1]), profile, 1) or lines[:1]
    head = lines[:-1]
    keep = head[:max_lines - 1]
    keep[-1] = (fit_text(_joined(keep[-1], head[max_lines - 1]), profile, 1) or [keep[-1]])[0] \
        if len(head) > max_lines - 1 else keep[-1]
    return [*keep, lines[-1]]


class MentraDisplay:
    name = "mentra"
    dashboard = True  # keep the caption's story on the dashboard between captions

    def __init__(self, app: _Links) -> None:
        self.app = app  # the MentraApp: its sessions are the connected glasses

    def layout_event(self, session_id: str, layout: dict[str, Any], duration_ms: int | None,
                     *, view: str = "main") -> dict[str, Any]:
        event: dict[str, Any] = {
            "type": "display_event",
            "packageName": self.app.config.package_name,
            "sessionId": session_id,
            "view": view,
            "layout": layout,
            "timestamp": _now_iso(),
        }
        if duration_ms is not None:  # none on the dashboard: it stays until replaced
            event["durationMs"] = duration_ms
        return event

    def display_event(self, session_id: str, caption: Caption, *, profile: str | None = None,
                      caps: DisplayCaps | None = None) -> dict[str, Any]:
        """The `display_event` for a caption, shaped so that all of it shows on `profile` and within
        the glasses' reported `caps` (the module docstring says which layout when)."""
        lines = list(caption.lines) or [caption.text]
        name = profile or caption.profile
        prof = get_profile(name) if name else None
        max_lines = prof.max_lines if prof else len(lines) + 1
        if caps is not None and caps.max_text_lines:
            max_lines = min(max_lines, caps.max_text_lines)
        if prof is not None:
            lines = fit_lines(lines, prof, max_lines)
        bitmap = self._bitmap(lines, prof, caps)
        if bitmap is not None:
            return self.layout_event(session_id, {"layoutType": "bitmap_view", "data": bitmap}, caption.ttl_ms)
        card = self.app.config.layout == "reference_card" and name != "even-g1" and len(lines) > 1
        if card and len(lines) + 1 <= max_lines:
            layout = {"layoutType": "reference_card", "title": "\n".join(lines[:-1]), "text": lines[-1]}
        elif card:
            layout = {"layoutType": "double_text_wall", "topText": "\n".join(lines[:-1]), "bottomText": lines[-1]}
        else:
            layout = {"layoutType": "text_wall", "text": "\n".join(lines)}
        return self.layout_event(session_id, layout, caption.ttl_ms)

    def dashboard_event(self, session_id: str, caption: Caption, *,
                        profile: str | None = None) -> dict[str, Any] | None:
        """The caption's story as a `dashboard_card` (platform | headline), or None where the
        dashboard's font could not draw it."""
        prof = get_profile(profile or caption.profile) if (profile or caption.profile) else None
        platform = caption_label(caption.source.split("+", 1)[0])
        if prof is not None and needs_bitmap(platform + caption.title, cjk=prof.cjk):
            return None
        title = (fit_text(caption.title, prof, 1) if prof else [caption.title]) or [caption.title]
        return self.layout_event(session_id, {"layoutType": "dashboard_card", "leftText": platform,
                                              "rightText": title[0]}, None, view="dashboard")

    def _bitmap(self, lines: list[str], profile: DisplayProfile | None, caps: DisplayCaps | None) -> str | None:
        if profile is None or caps is None or not caps.can_bitmap or not needs_bitmap("".join(lines), cjk=profile.cjk):
            return None
        try:
            image = render_caption(lines, caps.width or profile.width_px or 576,
                                   caps.height or profile.height_px or 135)
        except ConfigError:
            return None  # no Pillow or no CJK font here: the text goes as it is
        return bmp_base64(image)

    async def send(self, session_id: str, caption: Caption) -> bool:
        """Show a caption on one session's glasses, whatever session the caption names."""
        link = self.app.sessions.get(session_id)
        if link is None:
            return False
        sent = await link.send(self.display_event(session_id, caption, profile=link.profile, caps=link.caps))
        if sent and self.dashboard:
            board = self.dashboard_event(session_id, caption, profile=link.profile)
            if board is not None:
                await link.send(board)
        return sent
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
                if self.dashboard:
                    await link.send(self.layout_event(sid, {"layoutType": "dashboard_card", "leftText": "",
                                                            "rightText": ""}, None, view="dashboard"))

    async def aclose(self) -> None:
        """Nothing of its own to close: the connections are the app's (`MentraApp.aclose`)."""
