"""Captions as pictures, for displays whose font cannot draw them.

A display whose font has no CJK glyphs (Brilliant Labs Halo and Frame; a MentraOS device whose
profile says so) turns 春晚 into boxes or nothing. Such a caption is drawn here, with a CJK font
from the system (Debian's `fonts-noto-cjk`, found at run time through fontconfig or in the usual
folders), into the display's own size and palette, and sent as an image instead.

Pillow is an optional dependency (the `glasses` extra): imported on first use, with an error
saying what to install.
"""

from __future__ import annotations

import base64
import functools
import glob
import io
import shutil
import subprocess
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["CJK_FONT_NAMES", "bmp_base64", "find_cjk_font", "needs_bitmap", "render_caption"]

# Tried in order through fontconfig, then as files under the font folders.
CJK_FONT_NAMES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "WenQuanYi Zen Hei", "Droid Sans Fallback")
_FONT_GLOBS = ("NotoSansCJK-Regular.ttc", "NotoSansCJK*.ttc", "NotoSansCJKsc-Regular.otf", "wqy-zenhei.ttc",
               "DroidSansFallback*.ttf")
_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", str(Path.home() / ".local/share/fonts"))
_INSTALL = "install Debian's fonts-noto-cjk (apt-get install fonts-noto-cjk)"


def needs_bitmap(text: str, *, cjk: bool) -> bool:
    """Whether `text` must be drawn for a display whose font has (`cjk`) or lacks CJK glyphs:
    it holds a wide character (Han, kana, Hangul, full-width forms) the font cannot draw."""
    return not cjk and any(unicodedata.east_asian_width(ch) in "WF" for ch in text)


@functools.cache
def find_cjk_font() -> Path:
    """A font file that draws Chinese, Japanese and Korean: fontconfig's choice, else a file in the
    usual font folders. ConfigError (saying what to install) when the system has none."""
    if shutil.which("fc-match"):
        for name in CJK_FONT_NAMES:
            try:
                found = subprocess.run(["fc-match", "-f", "%{file}", f"{name}:lang=zh-cn"], capture_output=True,
                                       text=True, timeout=5, check=False).stdout.strip()
            except (OSError, subprocess.TimeoutExpired):
                break
            if found and ("CJK" in found or any(w in found.lower() for w in ("wqy", "droidsansfallback"))):
                return Path(found)
    for pattern in _FONT_GLOBS:
        for folder in _FONT_DIRS:
            hits = sorted(glob.glob(f"{folder}/**/{pattern}", recursive=True))
            if hits:
                return Path(hits[0])
    raise ConfigError(f"no CJK font found for drawing captions as bitmaps: {_INSTALL}")


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError as exc:
        raise ConfigError("drawing captions as bitmaps needs Pillow: pip install 'trendlens[glasses]'") from exc
    return Image, ImageDraw, ImageFont


_REFERENCE = 100  # px: the size text is measured at


@functools.lru_cache(maxsize=64)
def _font(size: int) -> Any:
    _, _, image_font = _pil()
    return image_font.truetype(str(find_cjk_font()), size)


def render_caption(lines: Sequence[str], width: int, height: int, *, margin: int = 4) -> Image:
    """The caption's lines drawn white on black in a `width` × `height` grey image ("L"), the font
    as large as lets every line fit: one line a row, never wrapped again here (the lines are
    already fitted to the display's profile)."""
    image_mod, draw_mod, _ = _pil()
    image = image_mod.new("L", (width, height), 0)
    shown = [line for line in lines if line.strip()] or [""]
    usable_w, usable_h = max(1, width - 2 * margin), max(1, height - 2 * margin)
    draw = draw_mod.Draw(image)
    # widths scale with the size: measured once at a reference size, not tried size by size
    widest = max(draw.textlength(line, font=_font(_REFERENCE)) for line in shown) or 1.0
    size = max(8, min(64, int(usable_h / len(shown) / 1.25), int(_REFERENCE * usable_w / widest)))
    font = _font(size)
    step = min(int(size * 1.25), usable_h // len(shown))
    for row, line in enumerate(shown):
        draw.text((margin, margin + row * step), line, fill=255, font=font)
    return image


def bmp_base64(image: Image) -> str:
    """A one-bit BMP of `image`, base64: what MentraOS's `bitmap_view` layout takes for a
    monochrome display."""
    buffer = io.BytesIO()
    image.point(lambda v: 255 if v >= 128 else 0).convert("1").save(buffer, format="BMP")
    return base64.b64encode(buffer.getvalue()).decode("ascii")
