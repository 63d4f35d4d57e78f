"""Even Realities G2 through Even Hub: our plugin (deploy/even-hub/, built with
`@evenrealities/even_hub_sdk`) in Even's own simulator, headless, watching a TrendLens session
served by uvicorn. A caption said in the session must reach the G2 text container: the plugin
logs the SDK's answer to `textContainerUpgrade` with the text, and the glasses' framebuffer changes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from agent.api import create_app
from agent.captions.fit import fit_text
from harness.apps import AUTH, LiveServer, make_runtime

from .even_hub import need_even_hub, open_page, simulator


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    need_even_hub()
    runtime = make_runtime(tmp_path / "data")
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as live:
        yield live


def _lit(image) -> int:
    """Pixels the glasses light (the framebuffer is see-through where nothing is drawn)."""
    return sum(1 for r, g, b, a in image.getdata() if a and (r or g or b))


def _shown(sim, count: int) -> dict:
    line = sim.wait_log("trendlens: caption", count=count)[count - 1]
    return json.loads(line.removeprefix("trendlens: caption "))


def test_a_caption_said_in_a_session_reaches_the_g2_text_container(server: LiveServer) -> None:
    s = httpx.post(server.url + "/v1/sessions", json={"profile": "even-g2"}, headers=AUTH).json()
    with simulator(server.url, s["id"], s["token"]) as sim:
        assert sim.wait_log("trendlens: page created")
        sim.wait_log("trendlens: live")
        before = sim.screenshot()
        assert before.size == (576, 288)
        said = httpx.post(server.url + f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                          json={"text": "今年春晚的机器人扭秧歌你们看了吗", "final": True}).json()
        assert said["captions"], said
        lines = said["captions"][0]["lines"]
        shown = _shown(sim, 1)
        assert shown == {"ok": True, "text": "\n".join(lines)}  # the SDK accepted exactly our lines
        after = sim.wait_screen(lambda image: _lit(image) > _lit(before) + 300)  # the caption's strokes
        assert _rows(after) == len(lines)  # drawn on the rows the even-g2 profile fitted them to
        said = httpx.post(server.url + f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                          json={"text": "did you see the Super Bowl halftime show last night", "final": True}).json()
        if said["captions"]:  # a second story may be held back while the first is read
            assert _shown(sim, 2)["text"] == "\n".join(said["captions"][0]["lines"])


def test_the_plugin_only_watches_the_session_its_token_opens(server: LiveServer) -> None:
    s = httpx.post(server.url + "/v1/sessions", json={"profile": "even-g2"}, headers=AUTH).json()
    with simulator(server.url, s["id"], "not-the-token") as sim:
        sim.wait_log("trendlens: page created")
        said = httpx.post(server.url + f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                          json={"text": "今年春晚的机器人扭秧歌你们看了吗", "final": True}).json()
        assert said["captions"]
        import time

        time.sleep(1.5)
        assert sim.logged("trendlens: caption") == [] and sim.logged("trendlens: live") == []


def _rows(image) -> int:
    """Text rows drawn: bands of lit pixel rows, gaps under 6 px inside one row of text."""
    alpha = image.split()[3]
    lit = [any(alpha.crop((0, y, image.width, y + 1)).tobytes()) for y in range(image.height)]
    rows, gap, inside = 0, 99, False
    for on in lit:
        if on:
            rows += not inside and gap >= 6
            inside, gap = True, 0
        else:
            inside, gap = False, gap + 1
    return rows


def test_lines_fitted_to_the_even_g2_profile_are_the_lines_the_glasses_draw() -> None:
    need_even_hub()
    zh = fit_text("春晚机器人扭秧歌惊艳全场，微博抖音都在热议这件事情到底怎么回事呢大家都来看看" * 2, "even-g2", 4)
    en = fit_text("Super Bowl halftime show breaks streaming records as millions tune in to watch " * 2, "even-g2", 4)
    over = [zh[0] + zh[1][0], en[0] + " " + en[1]]  # a Hanzi more than a line takes; two lines' words
    samples = ["\n".join(zh), "\n".join(en), *over]
    with open_page("measure.html", "samples=" + quote(json.dumps(samples))) as sim:
        sim.wait_log("measure: ready")
        drawn = []
        last = sim.screenshot().tobytes()
        for index in range(len(samples)):
            sim.click()
            sim.wait_log("measure: {", count=index + 1)
            image = sim.wait_screen(lambda im, last=last: im.tobytes() != last)
            last = image.tobytes()
            drawn.append(_rows(image))
    assert drawn == [len(zh), len(en), 2, 2], drawn  # ours fit on their rows; more wraps
