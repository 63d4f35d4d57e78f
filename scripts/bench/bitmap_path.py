#!/usr/bin/env python
"""Utterance → display on the bitmap path (Halo, Frame, MentraOS glasses without CJK glyphs).

    .venv/bin/python scripts/bench/bitmap_path.py [--lines 200] [--profile halo] [--emulator]
    .venv/bin/python scripts/bench/bitmap_path.py --screenshots docs/glasses/img

Drives the real runtime over the synthetic demo snapshot (the hash test embedder, so the model is
out of the figure, as in hot_path.py): each line is said in a session of its own, as a wearer
naming a headline of the snapshot would say it ("你看到…了吗", "did you see …"), so each one makes
a caption. The Halo display sits in the runtime's display router beside the HUD; its link to the
glasses is the point timed: from the moment the line is handed to `Runtime.handle_utterance`
to the moment the caption's sprite (drawn, quantized to the device's palette, packed) is handed to
`brilliant_msg`'s `send_message`. What Bluetooth then takes depends on the radio, not on us.
The same lines in `hud-web` sessions give the text path's figure beside it (to the HUD's queue).

`--emulator` sends to Brilliant Labs' Halo emulator instead and times until the emulated screen
holds the caption's pixels (the emulator draws a bitmap pixel by pixel in Python: its own cost).
`--screenshots DIR` writes what the emulator shows for a Chinese and an English caption.
`--mentra` times what the MentraOS path adds to a caption for glasses without CJK glyphs (a Frame
reporting bitmaps): the `display_event` with its `bitmap_view` (drawing, one-bit BMP, base64).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from agent.captions.profiles import get_profile
from agent.display.halo import HaloDisplay
from agent.ranking import HashEmbedder
from agent.runtime import Runtime
from agent.settings import Settings
from harness.stats import pct


class TimingLink:
    """A `brilliant_msg` stand-in that notes when each message is handed over."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, int]] = []

    async def upload_stdlua_libs(self, lib_names: list[str], minified: bool = True) -> None:
        return None

    async def upload_frame_app(self, local_filename: str, frame_filename: str = "frame_app.lua") -> None:
        return None

    async def start_frame_app(self, frame_app_name: str = "frame_app", await_print: bool = True) -> None:
        return None

    async def send_message(self, msg_code: int, payload: bytes, show_me: bool = False) -> None:
        self.sent.append((time.perf_counter(), len(payload)))

    async def disconnect(self) -> None:
        return None


async def _runtime() -> Runtime:
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="tl-bitmap-")), offline=True, api_keys="bench-key")
    runtime = Runtime.build(settings, embedder=HashEmbedder())
    await runtime.collector.cycle()
    await runtime.start()
    return runtime


def _lines(runtime: Runtime, n: int) -> list[str]:
    topics = [s.topic for s in runtime.store.current(limit=1000)]
    said = [f"你看到{t.title}了吗" if t.lang == "zh" else f"did you see {t.title}" for t in topics]
    return (said * (n // max(1, len(said)) + 1))[:n]


async def _say(runtime: Runtime, profile: str, text: str) -> tuple[float, Any]:
    session, _ = runtime.sessions.create(profile=profile)
    start = time.perf_counter()
    result = await runtime.handle_utterance(session, text)
    return start, result


async def bench(n: int, profile: str, emulator: bool) -> dict[str, Any]:
    runtime = await _runtime()
    link: Any
    if emulator:
        from halo_emulator import EmulatorBrilliantMsg, HaloEmulator

        emu = HaloEmulator(print_handler=None)
        link = EmulatorBrilliantMsg(emu)
        await link.connect()
    else:
        link = TimingLink()
    halo = HaloDisplay(link, profile=profile)
    await halo.start()
    runtime.router.displays["halo"] = halo
    lines = _lines(runtime, n)
    bitmap: list[float] = []
    for text in lines:
        start, result = await _say(runtime, profile, text)
        if not result.captions:
            continue
        await halo.drained()
        if emulator:
            expected = halo.last_shown.tobytes()
            while emu.get_framebuffer().convert("L").crop((0, 0, *halo.last_shown.size)).tobytes() != expected:
                await asyncio.sleep(0.002)
            bitmap.append((time.perf_counter() - start) * 1000)
        else:
            bitmap.append((link.sent[-1][0] - start) * 1000)
    del runtime.router.displays["halo"]
    text_path: list[float] = []
    for text in lines:
        start, result = await _say(runtime, "hud-web", text)
        if result.captions:
            text_path.append((time.perf_counter() - start) * 1000)
    await halo.aclose()
    await runtime.aclose()
    sizes = [size for _, size in link.sent] if isinstance(link, TimingLink) else []
    return {"bitmap": bitmap, "text": text_path, "sizes": sizes, "lines": len(lines)}


async def screenshots(folder: Path) -> None:
    from halo_emulator import EmulatorBrilliantMsg, HaloEmulator

    from agent.captions.templates import compose_caption

    folder.mkdir(parents=True, exist_ok=True)
    emu = HaloEmulator(print_handler=None)
    link = EmulatorBrilliantMsg(emu)
    await link.connect()
    halo = HaloDisplay(link)
    await halo.start()
    for name, args in (
        ("halo-zh.png", dict(title="春晚机器人扭秧歌惊艳全场", platforms=[("weibo", 1), ("douyin", 2)],
                             heat=18_540_000, trend="rising")),
        ("halo-en.png", dict(title="Super Bowl halftime show breaks streaming records",
                             platforms=[("reddit", 2), ("hackernews", 5)], heat=52_000, trend="rising")),
    ):
        caption = compose_caption(**args, profile="halo", score=0.8, topic_id="bench:1")
        await halo.show(caption)
        await halo.drained()
        expected = halo.last_shown.tobytes()
        while emu.get_framebuffer().convert("L").crop((0, 0, *halo.last_shown.size)).tobytes() != expected:
            await asyncio.sleep(0.01)
        emu.get_framebuffer().convert("RGB").save(folder / name)
        print(f"wrote {folder / name}: {caption.lines}")
    await halo.aclose()


def mentra_bitmaps(n: int) -> None:
    from agent.captions.templates import compose_caption
    from agent.display.mentra_device import DisplayCaps
    from agent.display.mentra_display import MentraDisplay

    class _App:
        class config:  # noqa: N801 - the shape MentraDisplay reads
            package_name, layout = "bench", "reference_card"

        sessions: dict[str, Any] = {}

    display = MentraDisplay(_App())  # type: ignore[arg-type]
    caps = DisplayCaps(can_bitmap=True, width=640, height=400, max_text_lines=6)
    runtime = asyncio.run(_runtime())
    topics = [s.topic for s in runtime.store.current(lang="zh", limit=1000)]
    asyncio.run(runtime.aclose())
    times, size = [], 0
    for i in range(n):
        topic = topics[i % len(topics)]
        caption = compose_caption(title=topic.title, platforms=[(topic.source, topic.rank)], heat=topic.heat,
                                  trend="rising", profile="frame", score=0.8, topic_id=topic.id)
        start = time.perf_counter()
        event = display.display_event("bench", caption, profile="frame", caps=caps)
        times.append((time.perf_counter() - start) * 1000)
        assert event["layout"]["layoutType"] == "bitmap_view"
        size = max(size, len(event["layout"]["data"]))
    print(f"mentra bitmap_view (frame, 640x400): {n} captions; ms p50 {pct(times, 0.50):.1f} p95 {pct(times, 0.95):.1f}"
          f" max {max(times):.1f}; base64 up to {size} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--profile", default="halo", choices=[p for p in ("halo", "frame") if get_profile(p)])
    parser.add_argument("--emulator", action="store_true")
    parser.add_argument("--screenshots", type=Path)
    parser.add_argument("--mentra", action="store_true")
    args = parser.parse_args()
    if args.mentra:
        mentra_bitmaps(args.lines)
        return
    if args.screenshots:
        asyncio.run(screenshots(args.screenshots))
        return
    out = asyncio.run(bench(args.lines, args.profile, args.emulator))
    where = "on the emulated screen" if args.emulator else "handed to brilliant_msg"
    for name, values in (("bitmap (" + args.profile + ", " + where + ")", out["bitmap"]),
                         ("text (hud-web, to the HUD queue)", out["text"])):
        if values:
            print(f"{name}: {len(values)} captions of {out['lines']} lines; ms p50 {pct(values, 0.50):.1f}"
                  f" p95 {pct(values, 0.95):.1f} p99 {pct(values, 0.99):.1f} max {max(values):.1f}")
    if out["sizes"]:
        print(f"sprite bytes: median {sorted(out['sizes'])[len(out['sizes']) // 2]}, max {max(out['sizes'])}")


if __name__ == "__main__":
    main()
