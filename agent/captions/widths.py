"""How wide a grapheme cluster is on each kind of display: columns or G1 pixels."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache

from .graphemes import is_emoji_cluster, is_wide_cluster

__all__ = ["G1_GLYPH_WIDTHS", "WidthFn", "column_width", "g1_pixel_width", "scaled_columns"]

WidthFn = Callable[[str], int]
"""Width of one grapheme cluster, in the profile's unit (columns or pixels)."""


def column_width(cluster: str) -> int:
    """Terminal-style width: 2 for CJK, full-width and emoji, else 1 (never 0)."""
    return 2 if is_wide_cluster(cluster) else 1


def scaled_columns(narrow: int, wide: int) -> WidthFn:
    """A column width with a custom narrow:wide ratio (e.g. 3:7 for 42 Latin / 18 CJK per line)."""

    def width(cluster: str) -> int:
        return wide if is_wide_cluster(cluster) else narrow

    width.__qualname__ = f"scaled_columns({narrow}, {wide})"
    return width


# Glyph widths of the Even G1 firmware font (from Mentra's G1FontLoader table);
# the rendered width is (glyph + 1) * 2 px, so a space (2) takes 6 px.
G1_GLYPH_WIDTHS: dict[str, int] = {
    " ": 2, "!": 1, '"': 2, "#": 6, "$": 5, "%": 6, "&": 7, "'": 1, "(": 2, ")": 2, "*": 3,
    "+": 4, ",": 1, "-": 4, ".": 1, "/": 3, ":": 1, ";": 1, "<": 4, "=": 4, ">": 4, "?": 5,
    "@": 7, "[": 2, "\\": 3, "]": 2, "^": 4, "_": 3, "`": 2, "{": 3, "|": 1, "}": 3, "~": 7,
    "0": 5, "1": 3, "2": 5, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5, "8": 5, "9": 5,
    "A": 6, "B": 5, "C": 5, "D": 5, "E": 4, "F": 4, "G": 5, "H": 5, "I": 2, "J": 3, "K": 5,
    "L": 4, "M": 7, "N": 5, "O": 5, "P": 5, "Q": 5, "R": 5, "S": 5, "T": 5, "U": 5, "V": 6,
    "W": 7, "X": 6, "Y": 6, "Z": 5,
    "a": 5, "b": 4, "c": 4, "d": 4, "e": 4, "f": 4, "g": 4, "h": 4, "i": 1, "j": 2, "k": 4,
    "l": 1, "m": 7, "n": 4, "o": 4, "p": 4, "q": 4, "r": 3, "s": 4, "t": 3, "u": 5, "v": 5,
    "w": 7, "x": 5, "y": 5, "z": 4,
}
_G1_DEFAULT_GLYPH = 7  # the firmware table's fallback for a glyph it lacks → 16 px
_G1_HANZI_PX = 18
_G1_HANGUL_PX = 24
_G1_CYRILLIC_PX = 18


@lru_cache(maxsize=8192)
def g1_pixel_width(cluster: str) -> int:
    """Rendered pixel width of one cluster on the Even G1 (576 px usable per line)."""
    base = cluster[0]
    cp = ord(base)
    if 0xAC00 <= cp <= 0xD7AF or 0x1100 <= cp <= 0x11FF:
        return _G1_HANGUL_PX
    if is_wide_cluster(cluster) or is_emoji_cluster(cluster):
        return _G1_HANZI_PX
    if 0x0400 <= cp <= 0x04FF:
        return _G1_CYRILLIC_PX
    glyph = G1_GLYPH_WIDTHS.get(base)
    if glyph is None:
        # Accented Latin: measure the unaccented letter (É → E), else the font's fallback glyph.
        stripped = unicodedata.normalize("NFD", base)[0]
        glyph = G1_GLYPH_WIDTHS.get(stripped, _G1_DEFAULT_GLYPH)
    return (glyph + 1) * 2
