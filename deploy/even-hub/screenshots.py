#!/usr/bin/env python
"""Screenshots of the plugin in Even's simulator: a Chinese and an English caption said in a TrendLens
session (the synthetic demo snapshot), as the G2 draws them, on black as the wearer sees them.

    .venv/bin/python deploy/even-hub/screenshots.py [docs/glasses/img]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import httpx

from agent.api import create_app
from harness.apps import AUTH, LiveServer, make_runtime
from tests.display.even_hub import simulator


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/glasses/img")
    folder.mkdir(parents=True, exist_ok=True)
    runtime = make_runtime(Path(tempfile.mkdtemp(prefix="tl-even-shots-")))
    app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
    with LiveServer(app) as server:
        for name, said in (("even-g2-zh.png", "今年春晚的机器人扭秧歌你们看了吗"),
                           ("even-g2-en.png", "did you see the Super Bowl halftime show last night")):
            s = httpx.post(server.url + "/v1/sessions", json={"profile": "even-g2"}, headers=AUTH).json()
            with simulator(server.url, s["id"], s["token"]) as sim:
                sim.wait_log("trendlens: live")
                before = sim.screenshot().tobytes()
                out = httpx.post(server.url + f"/v1/sessions/{s['id']}/utterances", headers=AUTH,
                                 json={"text": said, "final": True}).json()
                if not out["captions"]:
                    raise SystemExit(f"no caption for {said!r}: {out['decision']}")
                sim.wait_log("trendlens: caption")
                image = sim.wait_screen(lambda im, before=before: im.tobytes() != before)
                from PIL import Image

                shown = Image.new("RGBA", image.size, (0, 0, 0, 255))
                shown.alpha_composite(image)
                shown.convert("RGB").save(folder / name)
                print(f"wrote {folder / name}: {out['captions'][0]['lines']}")


if __name__ == "__main__":
    main()
