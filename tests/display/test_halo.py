"""The Halo display against Brilliant Labs' Halo emulator (`halo-emulator`): our Lua app runs in the
emulator's Lua VM with the SDK's own `data` and `sprite` libraries, captions go in through the
SDK's message framing, and the emulated display must hold exactly the pixels we drew."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from agent.captions import Caption
from agent.captions.fit import fit_text
from agent.captions.profiles import get_profile
from agent.display.halo import MAX_MESSAGE, HaloDisplay, caption_sprite, pack_sprite

from .conftest import make_caption
from .glasses import need_bitmaps, need_halo_emulator

T = 5.0


@pytest.fixture
async def halo() -> AsyncIterator[tuple[HaloDisplay, object]]:
    need_halo_emulator()
    from halo_emulator import EmulatorBrilliantMsg, HaloEmulator

    emulator = HaloEmulator(print_handler=None)
    link = EmulatorBrilliantMsg(emulator)
    await link.connect()
    display = HaloDisplay(link)
    await display.start()
    yield display, emulator
    await display.aclose()
    assert emulator.get_error() is None, emulator.get_error()


async def _shows(emulator, expected, timeout: float = T) -> None:
    """Wait until the emulated display holds `expected` (grey, top left) and black elsewhere."""
    async with asyncio.timeout(timeout):
        while True:
            screen = emulator.get_framebuffer().convert("L")
            top = screen.crop((0, 0, expected.width, expected.height))
            rest = screen.crop((0, expected.height, screen.width, screen.height))
            if top.tobytes() == expected.tobytes() and not any(rest.tobytes()):
                return
            await asyncio.sleep(0.05)


def _lit(image) -> int:
    return sum(1 for v in image.getdata() if v)


async def _sent(display: HaloDisplay, caption: Caption):
    assert await display.show(caption)
    await asyncio.wait_for(display.drained(), T)
    return display.last_shown


async def test_a_chinese_caption_reaches_the_emulated_display_pixel_for_pixel(halo) -> None:
    display, emulator = halo
    caption = make_caption(title="春晚机器人扭秧歌惊艳全场", platforms=[("weibo", 1), ("douyin", 2)], profile="halo")
    shown = await _sent(display, caption)
    assert shown.width == 256 and 300 < _lit(shown)  # drawn strokes
    await _shows(emulator, shown)
    assert display.sent == 1


async def test_the_next_caption_replaces_the_last_and_clear_blanks_it(halo) -> None:
    display, emulator = halo
    first = await _sent(display, make_caption(title="春晚机器人扭秧歌", profile="halo"))
    await _shows(emulator, first)
    english = make_caption(title="Super Bowl halftime show breaks streaming records", platforms=[("reddit", 2)],
                           heat=52_000, profile="halo")
    second = await _sent(display, english)
    assert second.tobytes() != first.tobytes()
    await _shows(emulator, second)
    await display.clear()
    async with asyncio.timeout(T):
        while any(emulator.get_framebuffer().convert("L").tobytes()):
            await asyncio.sleep(0.05)


async def test_captions_of_another_session_and_expired_ones_are_refused(halo) -> None:
    display, _ = halo
    display.session_id = "s_mine"
    assert not await display.show(make_caption(profile="halo", session_id="s_other"))
    assert not await display.show(make_caption(profile="halo", ttl_ms=0))
    assert await display.show(make_caption(profile="halo", session_id="s_mine"))
    await asyncio.wait_for(display.drained(), T)
    assert display.sent == 1


def test_every_sprite_fits_one_message_in_the_devices_palette() -> None:
    need_bitmaps()
    pytest.importorskip("brilliant_msg")  # the glasses extra; need_halo_emulator fails under CI without it
    for name, colors in (("halo", 16), ("frame", 4)):  # Frame's 640 px rows need 2 bits a pixel to fit
        lines = fit_text("春晚机器人扭秧歌惊艳全场，微博抖音都在热议 " * 8, name)
        assert len(lines) == get_profile(name).max_lines  # every line of the display used
        sprite, shown = caption_sprite(lines, get_profile(name))
        assert sprite.num_colors == colors and len(sprite.palette_data) == 3 * colors
        assert len(sprite.pack()) <= MAX_MESSAGE and sprite.width == get_profile(name).width_px
        assert len(set(shown.getdata())) <= colors
        # our packing is the SDK's own, byte for byte
        assert pack_sprite(sprite.width, sprite.height, colors, sprite.palette_data, sprite.pixel_data) == sprite.pack()


async def test_a_caption_said_in_a_session_reaches_the_halo_emulator(tmp_path) -> None:
    need_halo_emulator()
    from halo_emulator import EmulatorBrilliantMsg, HaloEmulator

    from agent.ranking import HashEmbedder
    from agent.runtime import Runtime
    from agent.settings import Settings

    runtime = Runtime.build(Settings(data_dir=tmp_path, offline=True), embedder=HashEmbedder())
    await runtime.collector.cycle()
    await runtime.start()
    emulator = HaloEmulator(print_handler=None)
    link = EmulatorBrilliantMsg(emulator)
    await link.connect()
    session, _ = runtime.sessions.create(profile="halo")
    display = HaloDisplay(link, session_id=session.id)
    await display.start()
    runtime.router.displays["halo"] = display  # beside the HUD, as a deployment wires it
    try:
        said = await runtime.handle_utterance(session, "今年春晚的机器人扭秧歌你们看了吗")
        assert said.captions and said.captions[0].profile == "halo"
        await asyncio.wait_for(display.drained(), T)
        assert display.sent == 1 and _lit(display.last_shown) > 300
        await _shows(emulator, display.last_shown)
    finally:
        await runtime.aclose()  # closes the router's displays, the Halo's link with them
