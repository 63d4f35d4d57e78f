"""What deploy/compose.yaml tells the instances about the proxy in front of them."""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml"


def test_the_instances_trust_x_forwarded_for_from_their_nginx_and_nothing_else() -> None:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    nginx = compose["services"]["nginx"]["networks"]["default"]["ipv4_address"]
    subnet = ipaddress.ip_network(compose["networks"]["default"]["ipam"]["config"][0]["subnet"])
    assert ipaddress.ip_address(nginx) in subnet  # a fixed address on the network compose makes
    for name in ("trendlens-a", "trendlens-b"):
        env = {**compose["x-trendlens"]["environment"], **(compose["services"][name].get("environment") or {})}
        assert env["FORWARDED_ALLOW_IPS"] == nginx, name  # not '*': a client cannot name its own address
        assert "TRENDLENS_ADMIN_KEYS" in env


NGINX = COMPOSE.parent / "nginx.conf"
NGINX_TLS = COMPOSE.parent / "nginx-tls.conf"
COMPOSE_TLS = COMPOSE.parent / "compose.tls.yaml"


def _server_body(conf: str) -> list[str]:
    """The lines of a file's one `server { ... }` block after its listen (and TLS) lines."""
    lines = conf[conf.index("\nserver {") + 1:].splitlines()[2:]
    return [line for line in lines if not line.strip().startswith(("ssl_", "add_header Strict-Transport"))]


def test_nginx_limits_requests_connections_and_slow_clients_per_address() -> None:
    conf = NGINX.read_text(encoding="utf-8")
    for line in ("limit_req_zone $binary_remote_addr zone=trendlens_req:10m rate=50r/s;",
                 "limit_conn_zone $binary_remote_addr zone=trendlens_conn:10m;",
                 "limit_req_zone $trendlens_webhook_client zone=trendlens_webhook:1m rate=5r/s;",
                 "limit_req zone=trendlens_req burst=200 nodelay;",
                 "limit_req zone=trendlens_webhook burst=20 nodelay;",
                 "limit_conn trendlens_conn 256;", "limit_req_status 429;", "limit_conn_status 429;",
                 "client_header_timeout 10s;", "client_body_timeout 10s;", "send_timeout 30s;"):
        assert line in conf, line
    # the webhook zone counts the MentraOS webhook paths only
    assert "~^/(webhook|api/_mentraos/webhook|mentra/webhook)$ $binary_remote_addr;" in conf


def test_the_tls_server_is_the_plain_one_with_tls_and_reads_mounted_certs() -> None:
    tls = NGINX_TLS.read_text(encoding="utf-8")
    assert "listen 443 ssl;" in tls and "ssl_protocols TLSv1.2 TLSv1.3;" in tls
    assert "ssl_certificate /etc/nginx/certs/fullchain.pem;" in tls
    assert "ssl_certificate_key /etc/nginx/certs/privkey.pem;" in tls
    assert _server_body(tls) == _server_body(NGINX.read_text(encoding="utf-8"))  # limits, timeouts, proxying
    nginx = yaml.safe_load(COMPOSE_TLS.read_text(encoding="utf-8"))["services"]["nginx"]
    assert "./nginx-tls.conf:/etc/nginx/conf.d/tls.conf:ro" in nginx["volumes"]
    assert "${TRENDLENS_TLS_DIR:-./certs}:/etc/nginx/certs:ro" in nginx["volumes"]


def test_nginx_accepts_both_servers_with_test_certificates(tmp_path: Path) -> None:
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    openssl = shutil.which("openssl")
    if nginx is None or openssl is None:
        pytest.skip("nginx or openssl is not installed (apt-get install nginx openssl)")
    certs = tmp_path / "certs"
    certs.mkdir()
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-keyout", str(certs / "privkey.pem"), "-out", str(certs / "fullchain.pem")],
                   check=True, capture_output=True, timeout=60)
    # the deployed files, with what only compose provides (service names, ports, the mount) made local
    plain = NGINX.read_text(encoding="utf-8").replace("trendlens-a:8000", "127.0.0.1:9").replace(
        "trendlens-b:8000", "127.0.0.1:9").replace("listen 80;", "listen 127.0.0.1:18080;")
    tls = NGINX_TLS.read_text(encoding="utf-8").replace("/etc/nginx/certs", str(certs)).replace(
        "listen 443 ssl;", "listen 127.0.0.1:18443 ssl;")
    (tmp_path / "default.conf").write_text(plain, encoding="utf-8")
    (tmp_path / "tls.conf").write_text(tls, encoding="utf-8")
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path / 'nginx.pid'};\nerror_log {tmp_path / 'error.log'};\nevents {{}}\n"
        f"http {{\n  access_log off;\n  include {tmp_path / 'default.conf'};\n  include {tmp_path / 'tls.conf'};\n}}\n",
        encoding="utf-8")
    checked = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"),
                              "-c", str(tmp_path / "nginx.conf")], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
