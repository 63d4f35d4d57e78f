"""Brilliant Labs Halo (and Frame) as a display: each caption drawn into the device's own size and
palette and sent as one sprite through Brilliant Labs' SDK (`brilliant-sdk`).

Halo's font is ASCII only and Frame has no CJK font, so every caption is drawn here
(`bitmaps.render_caption`, a system CJK font) rather than sent as text: one code path for 春晚
and for "Super Bowl". The glasses run a small Lua app (`lua/trendlens_caption.lua`, beside the SDK's
`data` and `sprite` libraries) that draws each sprite over the whole view.

    caption ─fit (profile "halo")→ lines ─draw→ 256×256 grey ─16 levels→ TxSprite ─send_message(0x20)→ Lua app

`link` is anything speaking `brilliant_msg.BrilliantMsg`'s interface: the glasses over Bluetooth
(`BrilliantMsg()`, connected), or `halo_emulator.EmulatorBrilliantMsg` in the tests. `show` returns at
once; one task sends, and a caption arriving while another is on its way replaces the one waiting
(the newest is what the wearer should read; `dropped` counts the others).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from importlib import resources
from typing import Any, Protocol

from ..captions.caption import Caption
from ..captions.profiles import DisplayProfile, get_profile
from .bitmaps import render_caption

__all__ = ["CAPTION_MSG", "CLEAR_MSG", "BrilliantLink", "HaloDisplay", "caption_sprite", "pack_sprite",
           "palette_levels"]

log = logging.getLogger(__name__)

CAPTION_MSG = 0x20  # what the Lua app reads as a caption sprite
CLEAR_MSG = 0x10
APP_NAME = "trendlens_caption"
MAX_MESSAGE = 65_535  # brilliant_msg's length field is a Uint16: one sprite must fit in it


class BrilliantLink(Protocol):
    """What the display uses of `brilliant_msg.BrilliantMsg` (and of the emulator's adapter)."""

    async def upload_stdlua_libs(self, lib_names: list[str], minified: bool = True) -> None: ...

    async def upload_frame_app(self, local_filename: str, frame_filename: str = ...) -> None: ...

    async def start_frame_app(self, frame_app_name: str = ..., await_print: bool = ...) -> None: ...

    async def send_message(self, msg_code: int, payload: bytes, show_me: bool = False) -> None: ...

    async def disconnect(self) -> None: ...


def palette_levels(colors: int) -> list[tuple[int, int, int]]:
    """`colors` evenly spaced greys, black first: index 0 is the glasses' see-through VOID."""
    return [(round(255 * i / (colors - 1)),) * 3 for i in range(colors)]


def _colors_for(width: int, height: int) -> int:
    """The most levels (16, 4, 2) whose sprite still fits one message (Frame's 640×400 takes 4)."""
    for colors, bits in ((16, 4), (4, 2), (2, 1)):
        if width * height * bits // 8 + 7 + 3 * colors <= MAX_MESSAGE:
            return colors
    return 2


def pack_sprite(width: int, height: int, colors: int, palette: bytes, indices: bytes) -> bytes:
    """`brilliant_msg.TxSprite.pack()`'s bytes (uncompressed), packed with numpy: TxSprite packs
    pixel by pixel in Python, 10 ms of a 256×256 caption's budget. The tests hold the two equal."""
    import numpy as np

    bits = {2: 1, 4: 2, 16: 4}[colors]
    pixels = np.frombuffer(indices, dtype=np.uint8)
    per_byte = 8 // bits
    padded = np.zeros(-(-pixels.size // per_byte) * per_byte, dtype=np.uint8)
    padded[:pixels.size] = pixels & (colors - 1)
    groups = padded.reshape(-1, per_byte).astype(np.uint16)
    packed = np.zeros(groups.shape[0], dtype=np.uint16)
    for i in range(per_byte):
        packed |= groups[:, i] << (bits * (per_byte - 1 - i))
    return struct.pack(">HHBBB", width, height, 0, bits, colors) + palette + packed.astype(np.uint8).tobytes()


def caption_sprite(lines: list[str] | tuple[str, ...], profile: DisplayProfile) -> tuple[Any, Any]:
    """The caption drawn for `profile`'s canvas: (brilliant_msg `TxSprite`, the grey image as the
    glasses will show it, mode "L"). The drawing is cropped to the rows it uses."""
    from brilliant_msg import TxSprite

    width, height = profile.width_px or 256, profile.height_px or 256
    image = render_caption(lines, width, height)
    box = image.getbbox()
    if box is not None:
        image = image.crop((0, 0, width, min(height, box[3] + 2)))
    colors = _colors_for(image.width, image.height)
    step = 256 // colors
    indices = image.point(lambda v: min(colors - 1, v // step))
    levels = palette_levels(colors)
    shown = indices.point(lambda i: levels[i][0] if i < colors else 255)
    sprite = TxSprite(width=image.width, height=image.height, num_colors=colors,
                      palette_data=bytes(c for rgb in levels for c in rgb), pixel_data=indices.tobytes())
    return sprite, shown


class HaloDisplay:
    """Captions on one pair of Halo (or Frame) glasses; see the module docstring."""

    name = "halo"

    def __init__(self, link: BrilliantLink, *, profile: str = "halo", session_id: str | None = None) -> None:
        self.link = link
        self.profile = get_profile(profile)
        self.session_id = session_id  # the one session these glasses follow; None: every caption
        self.sent = 0
        self.dropped = 0
        self.last_shown: Any = None  # the grey image last sent, as the glasses show it
        self._pending: Caption | None = None
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Put the SDK's Lua libraries and our app on the glasses and start it."""
        await self.link.upload_stdlua_libs(lib_names=["data", "sprite"])
        app = resources.files("agent.display").joinpath(f"lua/{APP_NAME}.lua")
        with resources.as_file(app) as path:
            await self.link.upload_frame_app(str(path), frame_filename=f"{APP_NAME}.lua")
        await self.link.start_frame_app(frame_app_name=APP_NAME)
        self._task = asyncio.create_task(self._send_loop(), name="halo-captions")

    async def show(self, caption: Caption) -> bool:
        if caption.expired() or (self.session_id is not None and caption.session_id not in (None, self.session_id)):
            return False
        if self._pending is not None:
            self.dropped += 1  # a newer caption came before this one was sent
        self._pending = caption
        self._idle.clear()
        self._wake.set()
        return True

    async def drained(self) -> None:
        """Wait until every accepted caption has been sent (tests, benchmarks)."""
        await self._idle.wait()

    async def _send_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            caption, self._pending = self._pending, None
            if caption is None:
                continue
            try:
                if not caption.expired():
                    sprite, shown = await asyncio.to_thread(caption_sprite, list(caption.lines) or [caption.text],
                                                            self.profile)
                    payload = pack_sprite(sprite.width, sprite.height, sprite.num_colors, sprite.palette_data,
                                          sprite.pixel_data)
                    await self.link.send_message(CAPTION_MSG, payload)
                    self.sent += 1
                    self.last_shown = shown
            except Exception:  # one failed send must not end the display
                log.exception("halo: could not send a caption")
            finally:
                if self._pending is None:
                    self._idle.set()

    async def clear(self, session_id: str | None = None) -> None:
        if session_id is None or self.session_id in (None, session_id):
            self._pending = None
            await self.link.send_message(CLEAR_MSG, b"\x00")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.link.disconnect()
