"""What one slow or bulky client may hold of `serve`'s uvicorn: a deadline on headers, a header cap."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from agent.commands.ports import free_port
from agent.commands.serve import KEEP_ALIVE_S, MAX_HEADER_BYTES, server_config


async def hello(scope, receive, send) -> None:  # noqa: ANN001 - a bare ASGI app
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def served() -> Iterator[int]:
    port = free_port()
    server = uvicorn.Server(server_config(hello, "127.0.0.1", port, header_timeout_s=0.5, lifespan="off",
                                          log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


def _closed_after(sock: socket.socket, limit_s: float) -> float:
    """Seconds until the server closes `sock` (reads nothing but the close), failing past `limit_s`."""
    started = time.monotonic()
    sock.settimeout(limit_s)
    while True:
        if not sock.recv(4096):
            return time.monotonic() - started


def test_headers_sent_a_byte_at_a_time_lose_the_connection_at_the_deadline(served: int) -> None:
    with socket.create_connection(("127.0.0.1", served)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and the rest never comes
        assert _closed_after(sock, 3) < 1.5
    with socket.create_connection(("127.0.0.1", served)) as sock:  # nor does a silent connection stay
        assert _closed_after(sock, 3) < 1.5


def test_a_prompt_request_is_answered_and_its_connection_kept_alive(served: int) -> None:
    with socket.create_connection(("127.0.0.1", served)) as sock:
        for _ in range(2):  # two requests on one connection, the second after the first deadline would be due
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.settimeout(3)
            answer = sock.recv(4096)
            while not answer.endswith(b"ok"):  # the body may come in a segment of its own
                answer += sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 200")
            time.sleep(0.7)
        # idle, it is closed by the keep-alive timeout, not held
        assert _closed_after(sock, KEEP_ALIVE_S + 2) <= KEEP_ALIVE_S + 1


def test_headers_past_the_cap_are_refused(served: int) -> None:
    with socket.create_connection(("127.0.0.1", served)) as sock:
        # still no end of headers past the cap: refused before the deadline, not buffered on
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES + 1024))
        sock.settimeout(3)
        assert sock.recv(4096).startswith(b"HTTP/1.1 400")
