"""The real-server fixtures: PostgreSQL and Redis answer on loopback, with throwaway data."""

from __future__ import annotations

import socket


def test_postgres_answers_on_loopback(postgres_server, postgres_url):
    import psycopg

    assert postgres_url.startswith("postgresql://postgres@127.0.0.1:")
    with psycopg.connect(postgres_url) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
        listen = conn.execute("SHOW listen_addresses").fetchone()[0]
    assert version and listen == "127.0.0.1"
    assert postgres_server.datadir.exists()


def test_redis_answers_with_persistence_off(redis_server):
    with socket.create_connection(("127.0.0.1", redis_server.port), timeout=5) as s:
        s.sendall(b"*1\r\n$4\r\nPING\r\n*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n")
        reply = b""
        while b"save" not in reply or not reply.endswith(b"\r\n\r\n") and reply.count(b"\r\n") < 6:
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"+PONG\r\n")
    assert b"$4\r\nsave\r\n$0\r\n\r\n" in reply  # `--save ''`: no snapshots written


def test_missing_servers_skip_locally_and_fail_in_ci(monkeypatch):
    import shutil

    import pytest

    from harness import servers

    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="Redis is not installed"):
        servers.start_redis()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(BaseException, match="CI must run the real-server") as info:  # a skip must not pass
        servers.start_redis()
    assert info.type is pytest.fail.Exception


def test_missing_chromium_skips_locally_and_fails_in_ci(monkeypatch):
    import pytest

    from tests import browser

    monkeypatch.setattr(browser, "CHROMIUM", None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        browser.require_chromium()
    monkeypatch.setenv("CI", "1")
    # BaseException: a skip raised here must fail this test, not skip it
    with pytest.raises(BaseException, match="CI must run") as info:
        browser.require_chromium()
    assert info.type is pytest.fail.Exception
    with pytest.raises(BaseException, match="CI must run") as info, browser.chromium_page():
        pass
    assert info.type is pytest.fail.Exception
