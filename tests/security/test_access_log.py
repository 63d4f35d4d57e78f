"""The deployed nginx site logs paths, never the tokens HUD links carry in their query string."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from harness.servers import NGINX_SITE, start_instance, start_nginx


def test_the_nginx_access_log_drops_query_strings_and_referers(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    site = NGINX_SITE.read_text(encoding="utf-8")
    assert "access_log /dev/stdout trendlens_noquery;" in site
    deployed = tmp_path / "nginx.conf"  # the deployed file, its log written where the test can read it
    deployed.write_text(site.replace("access_log /dev/stdout", f"access_log {log}"), encoding="utf-8")
    instance = start_instance(tmp_path / "serve", api_keys="k")
    try:
        nginx = start_nginx([instance.port], site=deployed)  # skips where nginx is missing: serve still stops
    except BaseException:
        instance.stop()
        raise
    try:
        session = httpx.post(nginx.url + "/v1/sessions", json={}, headers={"Authorization": "Bearer k"},
                             timeout=10).json()
        hud = f"/hud/{session['id']}?token={session['token']}"
        assert httpx.get(nginx.url + hud, timeout=10).status_code == 200
        httpx.get(nginx.url + "/readyz?probe=1", headers={"Referer": nginx.url + hud}, timeout=10)
        for _ in range(50):
            if log.exists() and "/readyz" in log.read_text():
                break
            time.sleep(0.1)
        written = log.read_text()
        assert f"GET /hud/{session['id']} HTTP/1.1" in written
        assert session["token"] not in written and "token=" not in written and "?" not in written
    finally:
        nginx.stop()
        instance.stop()
