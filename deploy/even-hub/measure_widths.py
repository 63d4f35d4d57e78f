#!/usr/bin/env python
"""Measure the G2's text widths in Even's simulator: every printable ASCII character and a Hanzi,
each drawn 10 and 20 times in a full-width text container; the advance of one is the difference of
the two drawings' right edges over 10. Writes the `even-g2` entry of agent/captions/profiles.json.

    .venv/bin/python deploy/even-hub/measure_widths.py [--write]

Needs what the Even Hub tests need (`make even-hub`, Xvfb and WebKitGTK: docs/glasses/even-g2.md).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from urllib.parse import quote

from tests.display.even_hub import open_page

ROOT = Path(__file__).resolve().parents[2]
PROFILES = ROOT / "agent" / "captions" / "profiles.json"
CHARS = [chr(c) for c in range(0x21, 0x7F)] + ["中", "。", "，"]


def _edges(image) -> tuple[int, int] | None:
    lit = image.split()[3].point(lambda a: 255 if a else 0).getbbox()
    return (lit[0], lit[2]) if lit else None


def measure() -> dict:
    samples = [c * n for c in CHARS for n in (10, 20)] + ["a" * 10, "a" * 5 + " " * 5 + "a" * 5]
    widths: dict[str, float] = {}
    with open_page("measure.html", "samples=" + quote(json.dumps(samples))) as sim:
        sim.wait_log("measure: ready")
        edges = []
        last = None
        for index, _ in enumerate(samples):
            sim.click()
            sim.wait_log("measure: {", count=index + 1)
            time.sleep(0.05)
            try:
                image = sim.wait_screen(lambda im, last=last: im.tobytes() != last, timeout=3)
            except AssertionError:  # a glyph the font lacks draws nothing (the backtick): left out
                image = sim.screenshot()
            last = image.tobytes()
            edges.append(_edges(image))
    for i, char in enumerate(CHARS):
        ten, twenty = edges[2 * i], edges[2 * i + 1]
        if ten and twenty:
            widths[char] = round((twenty[1] - ten[1]) / 10, 2)
    a10, spaced = edges[-2], edges[-1]
    left = a10[0] if a10 else 0
    space = round((spaced[1] - a10[1]) / 5, 2) if a10 and spaced else 0.0
    return {"measured_with": "deploy/even-hub/measure_widths.py, @evenrealities/evenhub-simulator 0.9.5",
            "left_px": left, "space": space, "glyphs": widths}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write agent/captions/profiles.json")
    args = parser.parse_args()
    found = measure()
    print(json.dumps(found, ensure_ascii=False))
    if args.write:
        data = json.loads(PROFILES.read_text(encoding="utf-8")) if PROFILES.exists() else {}
        data["even-g2"] = found
        PROFILES.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
