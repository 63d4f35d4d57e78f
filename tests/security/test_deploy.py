"""What deploy/compose.yaml tells the instances about the proxy in front of them."""

from __future__ import annotations

import ipaddress
from pathlib import Path

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
