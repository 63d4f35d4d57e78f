from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from agent.captions import Caption, compose_caption


def make_caption(**overrides) -> Caption:
    args = dict(
        title="某明星官宣结婚", platforms=[("weibo", 3)], heat=18_540_000, trend="rising",
        profile="hud-web", score=0.8, topic_id="weibo:abc",
    )
    return compose_caption(**(args | overrides))


@pytest.fixture
def caption_factory() -> Callable[..., Caption]:
    return make_caption


@dataclass
class Received:
    at: float
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A real HTTP/1.1 server on 127.0.0.1 answering with scripted statuses."""

    statuses: list[int] = field(default_factory=list)  # consumed in order; then `default`
    default: int = 200
    requests: list[Received] = field(default_factory=list)
    delay_s: float = 0.0
    url: str = ""
    got_one: asyncio.Event = field(default_factory=asyncio.Event)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")[1:]
            headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines if ln)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            self.requests.append(Received(time.time(), headers, body))
            self.got_one.set()
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            status = self.statuses.pop(0) if self.statuses else self.default
            writer.write(
                f"HTTP/1.1 {status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok".encode()
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    rec = Receiver()
    server = await asyncio.start_server(rec.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    rec.url = f"http://127.0.0.1:{port}/hook"
    async with server:
        yield rec
        server.close()
