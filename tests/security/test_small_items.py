"""Small holes, each closed: a hostile URL in a Markdown digest, a body too large without a length,
the embedding cache after a failed write."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from agent.errors import StoreError
from agent.ranking.cache import EmbeddingCache
from harness.apps import AUTH

from .conftest import app_client


def test_a_url_cannot_inject_markdown_or_html_into_the_digest(tmp_path):
    evil = "https://weibo.com/x>\n\n# injected heading\n<img src=x onerror=alert(1)>"
    with app_client(tmp_path / "data") as client:
        r = client.post("/v1/topics", headers=AUTH, json=[
            {"id": "evil-url", "title": "zebra quokka marathon", "source": "weibo", "url": evil, "heat": 9e9}])
        assert r.status_code in (200, 201, 202), r.text
        md = client.get("/v1/digest?format=md&limit=50", headers=AUTH).text
    line = next(li for li in md.splitlines() if "weibo.com/x" in li)
    # one autolink to the end of the line, everything that could have ended it percent-encoded
    assert line.endswith("<https://weibo.com/x%3E%0A%0A#%20injected%20heading%0A%3Cimg%20src=x%20onerror=alert(1)%3E>")
    assert "\n# injected" not in md and "<img" not in md


def test_a_body_over_the_cap_without_content_length_gets_413(tmp_path):
    with app_client(tmp_path / "data", max_request_bytes=4096) as client:
        def chunks():
            for _ in range(10):
                yield b"[" + b" " * 1000

        r = client.post("/v1/topics", headers={**AUTH, "Content-Type": "application/json"}, content=chunks())
    assert "content-length" not in {k.lower() for k in r.request.headers}
    assert r.status_code == 413, r.text
    assert "over 4096 bytes" in r.json()["error"]["message"]


def test_the_embedding_cache_keeps_working_after_a_failed_insert(tmp_path):
    cache = EmbeddingCache(tmp_path / "cache.sqlite3")
    cache.put_many("m", ["hello"], np.ones((1, 4), dtype=np.float32))
    real = cache._db
    calls = {"n": 0}

    class FailingOnce:  # the disk fills up once, mid-insert
        def __getattr__(self, name):
            return getattr(real, name)

        def executemany(self, sql, rows):
            calls["n"] += 1
            if calls["n"] == 1:
                list(rows)
                raise sqlite3.OperationalError("database or disk is full")
            return real.executemany(sql, rows)

    cache._db = FailingOnce()
    with pytest.raises(StoreError):
        cache.get_many("m", ["hello"], 4)
    vectors, found = cache.get_many("m", ["hello", "other"], 4)  # the next read works again
    assert found.tolist() == [True, False] and vectors[0].tolist() == [1.0] * 4
