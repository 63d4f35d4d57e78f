"""Push channels through apprise, posted to a loopback server over `json://`."""

from __future__ import annotations

import logging

import pytest

from agent.answers.digest import Digest, DigestItem
from agent.errors import ConfigError
from agent.metrics import Metrics
from agent.notify import Notifier, digest_message
from agent.notify.message import Message
from tests.notify.receiver import receiver

MESSAGE = Message(title="t", markdown="**hello**", text="hello")


async def no_wait(_: float) -> None:
    return None


async def test_a_message_reaches_the_channel_as_markdown() -> None:
    with receiver() as r:
        notifier = Notifier([r.url()], sleep=no_wait)
        [delivery] = await notifier.send(MESSAGE)
        notifier.close()
    assert delivery.ok and delivery.attempts == 1
    [body] = r.bodies()
    assert (body["title"], body["message"]) == ("t", "**hello**")


async def test_a_failing_channel_is_retried_with_back_off_and_blocks_no_other(caplog) -> None:
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    metrics = Metrics()
    with receiver() as r, caplog.at_level(logging.DEBUG):
        r.failing.add("/down")
        notifier = Notifier([r.url("/down"), r.url("/up")], retries=2, backoff_s=1.5, metrics=metrics, sleep=sleep)
        down, up = await notifier.send(MESSAGE)
        notifier.close()
    assert (down.ok, down.attempts, up.ok, up.attempts) == (False, 3, True, 1)
    assert waits == [1.5, 3.0] and len(r.bodies("/down")) == 3 and len(r.bodies("/up")) == 1
    assert notifier.failing() == ["json#1"]
    health = {h.name: h for h in notifier.health()}
    assert health["json#1"].consecutive_failures == 3 and health["json#2"].sent == 1
    scraped = metrics.render()
    assert 'trendlens_notify_total{channel="json#1",outcome="failed"} 3.0' in scraped
    assert 'trendlens_notify_total{channel="json#2",outcome="ok"} 1.0' in scraped


async def test_no_secret_of_a_channel_url_is_logged(caplog) -> None:
    secret = "Sup3rSecretToken"
    with receiver() as r, caplog.at_level(logging.DEBUG):
        r.failing.add(f"/{secret}")
        url = f"json://bot:{secret}pw@127.0.0.1:{r.port}/{secret}?key={secret}x"
        notifier = Notifier([url], retries=1, sleep=no_wait)
        await notifier.send(MESSAGE)
        notifier.close()
    assert r.posts  # it was really sent
    assert caplog.records and secret not in caplog.text
    assert all(secret not in str(h.public()) for h in notifier.health())


def test_a_url_apprise_cannot_read_is_a_config_error_without_the_url() -> None:
    with pytest.raises(ConfigError, match=r"URL #2 \(nope://…\)") as caught:
        Notifier(["json://127.0.0.1/x", "nope://token123456"])
    assert "token123456" not in str(caught.value)


def test_the_digest_message_is_one_short_line_per_story_with_platform_rank_and_link() -> None:
    items = [DigestItem(cluster_id=f"c{n}", title=f"story [{n}]" + "长" * (90 if n == 1 else 0),
                        platforms=[{"source": "weibo", "rank": n, "url": f"https://s.weibo.com/weibo?q={n}"},
                                   {"source": "zhihu", "rank": n + 1, "url": None}],
                        heat=1.0, score=1.0, trend="steady") for n in (1, 2)]
    d = Digest(generated_at="2030-01-02T03:04:05+00:00", since="2030-01-01T03:04:05+00:00", lang=None, items=items)
    message = digest_message(d, lang="zh")
    lines = message.markdown.splitlines()
    assert message.title == "热榜摘要 · 2030-01-02 03:04 UTC" and len(lines) == 2
    assert lines[1] == "2. [story \\[2\\]](https://s.weibo.com/weibo?q=2) — 微博 #2 · 知乎 #3"
    assert lines[0].endswith("…](https://s.weibo.com/weibo?q=1) — 微博 #1 · 知乎 #2")
    assert message.text.splitlines()[2] == "2. story [2] — 微博 #2 · 知乎 #3"


async def test_the_digest_workflow_pushes_one_message_with_the_top_stories(tmp_path) -> None:
    from agent.ranking import HashEmbedder
    from agent.runtime import Runtime
    from agent.settings import Settings

    with receiver() as r:
        rt = Runtime.build(Settings(data_dir=tmp_path, offline=True, notify_urls=r.url()), embedder=HashEmbedder())
        await rt.collector.cycle()
        await rt.start()
        record = await rt.engine.run("daily_digest")
        await rt.aclose()
    assert record.status == "ok", record.error
    [body] = r.bodies()
    lines = body["message"].splitlines()
    assert body["title"].startswith("热榜摘要") and len(lines) == 10
    assert all(line.startswith(f"{n}. ") and " — " in line and "#" in line for n, line in enumerate(lines, 1))


def test_a_failing_channel_is_reported_in_readyz_by_name_only(tmp_path) -> None:
    import asyncio

    from fastapi.testclient import TestClient

    from agent.api.app import create_app
    from harness.apps import make_runtime

    with receiver() as r:
        r.failing.add("/Secr3tHookKey")
        runtime = make_runtime(tmp_path / "data", notify_urls=r.url("/Secr3tHookKey"), notify_retries=0)
        asyncio.run(runtime.notifier.send(MESSAGE))
        app = create_app(runtime.settings, runtime=runtime, schedule=False, announce_key=False)
        with TestClient(app) as client:
            ready = client.get("/readyz")
    body = ready.json()
    assert "push channels failing: json#1" in body["reasons"] and "Secr3tHookKey" not in ready.text
    assert body["notify"][0]["channel"] == "json#1" and body["notify"][0]["failed"] == 1
