"""Display profiles: how many lines a pair of glasses shows and how wide a line is.

Numbers come from /shared/GLASSES.md (vendors' code and docs). Where a device
gives no text metrics (Rokid, Frame, our web HUD) the choice is ours and the
reason sits next to the profile.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

from ..errors import UnknownNameError
from .graphemes import graphemes, is_emoji_cluster, is_wide_cluster
from .widths import WidthFn, column_width, g1_pixel_width, scaled_columns

__all__ = ["DEFAULT_TTL_MS", "PROFILES", "DisplayProfile", "g2_pixel_width", "get_profile", "resolve_profile"]

DEFAULT_TTL_MS = 10_000  # Mentra Merge shows an insight for 10 s


@dataclass(frozen=True, kw_only=True)
class DisplayProfile:
    """What one display can show. Tweak with `dataclasses.replace` (e.g. a 4-line HUD)."""

    name: str
    description: str
    max_lines: int
    line_width: int
    unit: Literal["columns", "px"]
    measure: WidthFn
    max_bytes: int | None = None
    ttl_ms: int = DEFAULT_TTL_MS
    # False where the font has no emoji (G1 firmware, Frame): templates use words instead.
    emoji: bool = True
    # False where the display's font has no CJK glyphs (Halo, Frame): such a caption goes as a
    # bitmap drawn with a system CJK font (agent/display/bitmaps.py), never as broken text.
    cjk: bool = True
    width_px: int | None = None  # the canvas, for pages imitating the display
    height_px: int | None = None

    def width(self, text: str) -> int:
        """Rendered width of `text` in this profile's unit."""
        return sum(self.measure(g) for g in graphemes(text))


def _measured(name: str) -> dict:
    """A display's glyph widths as measured on it (profiles.json: the tool that measured them)."""
    table = json.loads(resources.files("agent.captions").joinpath("profiles.json").read_text(encoding="utf-8"))
    return table[name]


_G2 = _measured("even-g2")
_G2_GLYPHS: dict[str, int] = {k: round(v) for k, v in _G2["glyphs"].items()} | {" ": round(_G2["space"])}
_G2_WIDE = _G2_GLYPHS["中"]  # every Hanzi, kana, Hangul and full-width form: one em
_G2_FALLBACK = max(_G2_GLYPHS.values())  # a glyph not measured is taken as wide as the widest Latin one


@lru_cache(maxsize=8192)
def g2_pixel_width(cluster: str) -> int:
    """Drawn width of one cluster in the Even G2's text containers (measured in Even's simulator)."""
    if is_wide_cluster(cluster) or is_emoji_cluster(cluster):
        return _G2_WIDE
    return _G2_GLYPHS.get(cluster, _G2_FALLBACK)


def _profiles(*profiles: DisplayProfile) -> dict[str, DisplayProfile]:
    registry: dict[str, DisplayProfile] = {}
    for profile in profiles:
        if profile.name in registry:
            raise ValueError(f"duplicate display profile {profile.name!r}")
        registry[profile.name] = profile
    return registry


PROFILES: dict[str, DisplayProfile] = _profiles(
    DisplayProfile(
        name="even-g1",
        width_px=640, height_px=200,
        description="Even Realities G1: 640x200, 576 px usable, firmware font, payload <= 390 bytes",
        max_lines=5, line_width=576, unit="px", measure=g1_pixel_width,
        # The firmware crashes near 400 bytes; 390 leaves a margin.
        max_bytes=390, emoji=False,
    ),
    DisplayProfile(
        name="even-g2",
        width_px=576, height_px=288,
        description="Even Realities G2: 576x288 per eye, 16 greens; 28 Hanzi or ~50 Latin a line in its font",
        # Widths measured in Even's simulator (profiles.json): a Hanzi 20 px, Latin 4-17 px, a
        # space 5 px; a text container draws from x = 0 and wraps at its 576 px. Lines are kept to
        # 560 px (28 Hanzi): the advances leave kerning out, and a Latin line measured at 575 px
        # wrapped. Ten 27 px lines fill the 288 px; a text container holds at most 999 bytes. Its
        # font draws no emoji (a 🆕 came out blank), so templates use words.
        max_lines=10, line_width=560, unit="px", measure=g2_pixel_width, max_bytes=999, emoji=False,
    ),
    DisplayProfile(
        name="vuzix-z100",
        width_px=640, height_px=480,
        description="Vuzix Z100: ~42 Latin / ~18 CJK per line, 5 lines",
        # 3:7 weights give exactly 42 narrow or 18 wide characters in 126 units.
        max_lines=5, line_width=126, unit="columns", measure=scaled_columns(3, 7),
    ),
    DisplayProfile(
        name="mentra-generic",
        width_px=480, height_px=240,  # only the width is published; 240 px is our guess
        description="Mentra (Nex and unknown MentraOS glasses): ~26 CJK per line, 5 lines, <= 450 bytes",
        max_lines=5, line_width=52, unit="columns", measure=column_width, max_bytes=450,
    ),
    DisplayProfile(
        name="rokid-glasses",
        width_px=480, height_px=640,
        description="Rokid Glasses: 480x640 portrait custom view, 18 CJK / 36 Latin per line, 6 lines",
        # Our choice: 16 sp text at 240 dpi is 24 px per Hanzi; 480 px less 24 px
        # padding each side leaves 432 px = 18 Hanzi. Six 32 px lines keep the card
        # in the upper third of the 640 px see-through view.
        max_lines=6, line_width=36, unit="columns", measure=column_width,
    ),
    DisplayProfile(
        name="hud-web",
        width_px=640, height_px=200,
        description="TrendLens web HUD: 3 lines of 40 columns (full-width counts 2)",
        max_lines=3, line_width=40, unit="columns", measure=column_width,
    ),
    DisplayProfile(
        name="frame",
        width_px=640, height_px=400,
        description="Brilliant Labs Frame: 640x400, ~6 lines of ~40 Latin / 20 CJK (bitmap-drawn)",
        # Frame's Lua API does not wrap, so our lines are what it draws; ~16 px per
        # Latin glyph of the default font on 640 px, CJK drawn as 32 px bitmaps.
        max_lines=6, line_width=40, unit="columns", measure=column_width, emoji=False, cjk=False,
    ),
    DisplayProfile(
        name="halo",
        width_px=256, height_px=256,
        description="Brilliant Labs Halo: 256x256, 16 colours, ASCII-only font; captions drawn as bitmaps",
        # Our choice: the caption is drawn (bitmaps.py) at 20 px a Hanzi, 10 px a Latin letter,
        # inside 8 px margins: 240 px = 12 Hanzi or 24 Latin a line, 5 lines of 1.25 x 20 px
        # keep the card in the upper half of the round-cornered view.
        max_lines=5, line_width=24, unit="columns", measure=column_width, emoji=False, cjk=False,
    ),
)

#: The profile a session, or the MCP glasses preview, is fitted to when its caller names none: the
#: web HUD that every session's `hud_url` opens, so the preview shows what that session would.
DEFAULT_PROFILE = "hud-web"


def get_profile(name: str) -> DisplayProfile:
    """The registered profile called `name`; UnknownNameError lists the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownNameError("display profile", name, tuple(PROFILES)) from None


def resolve_profile(profile: str | DisplayProfile) -> DisplayProfile:
    """Accept a profile or its registered name."""
    return profile if isinstance(profile, DisplayProfile) else get_profile(profile)
