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
