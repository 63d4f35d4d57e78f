from __future__ import annotations

import io

import pytest

from agent.captions.graphemes import graphemes
from agent.captions.widths import column_width
from agent.display import DISPLAYS, Display, HudHub, StdoutDisplay, create_display
from agent.errors import UnknownNameError

from .conftest import make_caption


async def test_stdout_prints_an_aligned_box() -> None:
    stream = io.StringIO()
    display = StdoutDisplay(stream)
    assert await display.show(make_caption(title="Rust 2.0 发布了 🎉"))
    rows = stream.getvalue().splitlines()
    assert rows[0].startswith("┌─ weibo · 0.80 ") and rows[-1].startswith("└")
    assert rows[1:3] == ["│ Rust 2.0 发布了 🎉 │", "│ 微博#3 ↑ 1854万    │"]
    assert len({sum(column_width(g) for g in graphemes(r)) for r in rows}) == 1


def test_registry_builds_adapters_and_rejects_unknown_names() -> None:
    assert set(DISPLAYS) == {"stdout", "hud", "webhook", "mentra", "halo"}
    assert isinstance(create_display("hud"), HudHub)
    assert isinstance(create_display("stdout"), Display)
    with pytest.raises(UnknownNameError, match="valid: halo, hud, mentra, stdout, webhook"):
        create_display("smoke-signals")
