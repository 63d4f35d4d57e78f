"""MentraOS SDK v3 against the fake cloud: the display's capabilities (`maxTextLines`, bitmaps),
the layouts that fit better than a wall, the dashboard between captions, and diarized speakers.
Messages are written in the SDK's own shapes (`@mentra/sdk` types: `AppConnectionAck.capabilities`,
`CapabilitiesUpdate`, `SettingsUpdate`, `TranscriptionData.speakerId`, `DashboardCard`, `BitmapView`)."""

from __future__ import annotations

import asyncio
import base64
import io
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.server import serve

from agent.captions import Caption
from agent.display.mentra import Heard
from agent.display.mentra_device import DisplayCaps, SpeakerFilter, parse_caps

from .conftest import make_caption
from .glasses import need_bitmaps
from .test_mentra import (
    SESSION,
    FakeCloud,
    T,
    _app,
    _display_event,
    _five_line_caption,
    _session_request,
    _transcript,
    _until,
    _webhook,
)


@pytest.fixture
async def cloud() -> AsyncIterator[FakeCloud]:
    fake = FakeCloud()
    async with serve(fake.handler, "127.0.0.1", 0) as server:
        fake.url = f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/app-ws"
        yield fake


def _caps(model: str, *, lines: int | None = 5, bitmap: bool = False, size: tuple[int, int] = (640, 480),
          field: str = "display") -> dict:
    display: dict = {"count": 1, "isColor": False, "color": "green", "canDisplayBitmap": bitmap,
                     "resolution": {"width": size[0], "height": size[1]}, "fieldOfView": {"horizontal": 30},
                     "adjustBrightness": True}
    if lines is not None:
        display["maxTextLines"] = lines
    return {"modelName": model, "hasCamera": False, "camera": None, "hasDisplay": True, field: display}


async def _connected(cloud: FakeCloud, on_transcript=None, **cfg):
    app = _app(on_transcript, **cfg)
    await _webhook(app, _session_request(cloud.url))
    await app.wait_ready(SESSION, timeout_s=T)
    return app


def test_capabilities_are_read_from_display_and_from_the_older_screen_field() -> None:
    assert parse_caps(_caps("Vuzix Z100", lines=7)) == DisplayCaps(max_text_lines=7, width=640, height=480)
    assert parse_caps(_caps("Simulated Glasses", lines=3, field="screen")).max_text_lines == 3
    assert parse_caps({"modelName": "Mentra Live", "hasDisplay": False, "display": None}) is None
    assert parse_caps(_caps("X", lines=None, bitmap=True)) == DisplayCaps(can_bitmap=True, width=640, height=480)


async def test_a_caption_is_fitted_to_the_lines_the_glasses_report(cloud: FakeCloud) -> None:
    cloud.capabilities = _caps("Vuzix Z100", lines=3)
    app = await _connected(cloud)
    caption = _five_line_caption()
    assert await app.display.show(caption)
    layout = (await _display_event(cloud))["layout"]
    # three lines: the headline shortened to two, the meta line kept; no room for a card's blank line
    assert layout["layoutType"] == "double_text_wall"
    top = layout["topText"].split("\n")
    assert len(top) == 2 and top[-1].endswith("…") and layout["bottomText"] == caption.lines[-1]
    assert top[0] == caption.lines[0]
    await asyncio.wait_for(app.aclose(), T)


async def test_a_short_caption_still_gets_a_card_within_the_reported_lines(cloud: FakeCloud) -> None:
    cloud.capabilities = _caps("Vuzix Z100", lines=3)
    app = await _connected(cloud)
    assert await app.display.show(make_caption(session_id=SESSION))  # 2 lines + the card's blank = 3
    assert (await _display_event(cloud))["layout"] == {
        "layoutType": "reference_card", "title": "某明星官宣结婚", "text": "微博#3 ↑ 1854万"}
    await asyncio.wait_for(app.aclose(), T)


async def test_the_captions_story_stays_on_the_dashboard_between_captions(cloud: FakeCloud) -> None:
    cloud.capabilities = _caps("Vuzix Z100")
    app = await _connected(cloud)
    assert await app.display.show(make_caption(session_id=SESSION, ttl_ms=8000))
    main = await _display_event(cloud)
    await _until(lambda: len(cloud.dashboard) == 1)
    board = cloud.dashboard[0]
    assert main["view"] == "main" and main["durationMs"] == 8000
    assert board["view"] == "dashboard" and "durationMs" not in board  # stays until the next caption
    assert board["layout"] == {"layoutType": "dashboard_card", "leftText": "微博", "rightText": "某明星官宣结婚"}
    await app.display.clear(SESSION)  # erasing the session clears both views
    await _until(lambda: len(cloud.dashboard) == 2)
    assert cloud.dashboard[1]["layout"] == {"layoutType": "dashboard_card", "leftText": "", "rightText": ""}
    await asyncio.wait_for(app.aclose(), T)


async def test_glasses_changed_mid_session_are_fitted_from_then_on(cloud: FakeCloud) -> None:
    cloud.capabilities = _caps("Vuzix Z100", lines=7)
    cloud.streams = [{"type": "capabilities_update", "modelName": "Even Realities G1",
                      "capabilities": _caps("Even Realities G1", lines=5, size=(640, 200))}]
    app = await _connected(cloud)
    await _until(lambda: app.sessions[SESSION].profile == "even-g1")
    assert app.sessions[SESSION].caps == DisplayCaps(max_text_lines=5, width=640, height=200)
    assert await app.display.show(make_caption(session_id=SESSION))
    assert (await _display_event(cloud))["layout"]["layoutType"] == "text_wall"  # the G1 rule
    await asyncio.wait_for(app.aclose(), T)


def _spoken(text: str, speaker: str, start: int) -> dict:
    message = _transcript(text, "zh-CN", start, start + 900)
    message["data"]["speakerId"] = speaker
    return message


async def _heard(cloud: FakeCloud, settings_later: list[dict] | None = None) -> list[Heard]:
    heard: list[Heard] = []

    async def on_transcript(h: Heard) -> list[Caption]:
        heard.append(h)
        return []

    if settings_later is not None:
        cloud.streams.insert(1, {"type": "settings_update", "packageName": "com.trendlens.app",
                                 "settings": settings_later})
    app = await _connected(cloud, on_transcript, languages=("zh-CN",))
    await asyncio.sleep(0.5)
    await asyncio.wait_for(app.aclose(), T)
    return heard


LINES = [("我跟你说那个春晚机器人", "1", 0), ("对啊扭秧歌那个", "2", 2000), ("太厉害了", "1", 4000)]


async def test_every_speakers_line_is_heard_by_default_with_its_speaker(cloud: FakeCloud) -> None:
    cloud.streams = [_spoken(*line) for line in LINES]
    heard = await _heard(cloud)
    assert [(h.text, h.speaker_id) for h in heard] == [(t, s) for t, s, _ in LINES]


async def test_caption_only_other_speakers_leaves_the_wearers_lines_out(cloud: FakeCloud) -> None:
    cloud.settings = [{"key": "caption_others_only", "type": "toggle", "defaultValue": False, "value": True}]
    cloud.streams = [_spoken(*line) for line in LINES]
    heard = await _heard(cloud)
    # the wearer is the first voice diarized ("1"): only the other speaker's line is captioned
    assert [(h.text, h.speaker_id) for h in heard] == [("对啊扭秧歌那个", "2")]


async def test_the_setting_changed_mid_session_and_a_named_wearer(cloud: FakeCloud) -> None:
    cloud.streams = [_spoken(*line) for line in LINES]
    later = [{"key": "caption_others_only", "value": True}, {"key": "wearer_speaker_id", "value": "2"}]
    heard = await _heard(cloud, settings_later=later)
    # the first line came before the setting; then speaker 2 is the wearer, so only 1's lines remain
    assert [(h.text, h.speaker_id) for h in heard] == [("我跟你说那个春晚机器人", "1"), ("太厉害了", "1")]


def test_a_line_without_a_speaker_is_always_heard() -> None:
    speakers = SpeakerFilter(others_only=True)
    assert speakers.hears(None) and speakers.hears("A") is False and speakers.hears("B")
    assert speakers.hears(None)


async def test_chinese_on_a_mentraos_display_without_cjk_goes_as_a_bitmap(cloud: FakeCloud) -> None:
    need_bitmaps()
    from PIL import Image

    cloud.capabilities = _caps("Brilliant Labs Frame", lines=6, bitmap=True, size=(640, 400))
    app = await _connected(cloud)
    assert app.sessions[SESSION].profile == "frame"
    assert await app.display.show(make_caption(session_id=SESSION, profile="frame"))
    layout = (await _display_event(cloud))["layout"]
    assert set(layout) == {"layoutType", "data"} and layout["layoutType"] == "bitmap_view"
    image = Image.open(io.BytesIO(base64.b64decode(layout["data"])))
    assert image.format == "BMP" and image.size == (640, 400) and image.mode == "1"
    lit = sum(1 for v in image.getdata() if v)
    assert 500 < lit < 640 * 400 // 4  # drawn strokes, not a blank or a filled screen
    # no dashboard card: the dashboard's text would be as broken as the caption's
    await asyncio.sleep(0.1)
    assert cloud.dashboard == []
    # an English caption is text the font can draw: it stays text
    assert await app.display.show(make_caption(title="Super Bowl halftime show", platforms=[("reddit", 1)],
                                               session_id=SESSION, profile="frame"))
    assert (await _display_event(cloud))["layout"]["layoutType"] in ("reference_card", "double_text_wall")
    await asyncio.wait_for(app.aclose(), T)


async def test_without_bitmap_support_the_text_goes_as_it_is(cloud: FakeCloud) -> None:
    cloud.capabilities = _caps("Brilliant Labs Frame", lines=6, bitmap=False)
    app = await _connected(cloud)
    assert await app.display.show(make_caption(session_id=SESSION, profile="frame"))
    assert (await _display_event(cloud))["layout"]["layoutType"] != "bitmap_view"
    await asyncio.wait_for(app.aclose(), T)
