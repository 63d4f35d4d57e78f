from __future__ import annotations

import io

from agent.captions.graphemes import graphemes
from agent.captions.widths import column_width
from agent.display import StdoutDisplay

from .conftest import make_caption


async def test_stdout_prints_an_aligned_box() -> None:
    stream = io.StringIO()
    display = StdoutDisplay(stream)
    assert await display.show(make_caption(title="Rust 2.0 发布了 🎉"))
    rows = stream.getvalue().splitlines()
    assert rows[0].startswith("┌─ weibo · 0.80 ") and rows[-1].startswith("└")
    assert rows[1:3] == ["│ Rust 2.0 发布了 🎉 │", "│ 微博#3 ↑ 1854万    │"]
    assert len({sum(column_width(g) for g in graphemes(r)) for r in rows}) == 1

