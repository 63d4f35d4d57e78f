from __future__ import annotations

import dataclasses
import json

import pytest

from agent.captions import Caption


def _caption() -> Caption:
    return Caption(
        topic_id="weibo:1", title="热搜", text="热搜\n微博#1", lines=("热搜", "微博#1"), score=0.9,
        source="weibo", ttl_ms=2_000, profile="hud-web", created_at=1_000.0,
    )


def test_public_shape_is_json_ready() -> None:
    public = _caption().to_public()
    keys = {"topic_id", "text", "lines", "score", "source", "ttl_ms", "title", "profile", "created_at"}
    assert keys <= set(public)
    assert json.loads(json.dumps(public))["lines"] == ["热搜", "微博#1"]


def test_expiry_and_immutability() -> None:
    caption = _caption()
    assert not caption.expired(1_001.999)
    assert caption.expired(1_002.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        caption.text = "x"  # type: ignore[misc]


def test_a_caption_knows_how_long_its_headline_takes_to_read():
    from agent.captions.caption import reading_time
    from agent.captions.templates import compose_caption

    made = compose_caption(title="撒贝宁和任鲁豫加起来100岁了", platforms=[("douyin", 9), ("baidu", 18)],
                           heat=8_830_000, trend="new", profile="even-g1",
                           summary="主持人读到网友留言：两位老师年龄加起来正好100岁。",
                           score=1.0, topic_id="t")
    headline = made.lines[:made.headline]
    assert headline[0].startswith("撒贝宁") and "抖音" in headline[-1]
    assert len(made.lines) > made.headline  # the gist is not part of what must be read first
    assert 2.5 < made.read_s == reading_time(headline) < 6
    assert reading_time(["Faye Wong sings"]) < reading_time(["王菲唱歌王菲唱歌王菲唱"])
