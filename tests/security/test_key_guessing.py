"""Key guessing against a real `serve`: throttled per address, valid keys kept, no key minted behind a revocation."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agent.api import security
from agent.api.security import GUESSES_PER_WINDOW, MAX_REMEMBERED, KeyRing
from agent.settings import Settings
from agent.store.keys import make_key
from harness.servers import start_instance

ANNOUNCED = "TrendLens API key (shown once"


def test_an_address_spraying_random_keys_gets_429_and_a_known_key_still_works(tmp_path: Path) -> None:
    instance = start_instance(tmp_path / "serve", api_keys="k-real")
    try:
        codes = [httpx.get(instance.url + "/v1/topics", headers={"Authorization": f"Bearer tl_{secrets.token_hex(8)}"},
                           timeout=10).status_code for _ in range(GUESSES_PER_WINDOW + 5)]
        assert codes[:GUESSES_PER_WINDOW] == [401] * GUESSES_PER_WINDOW
        assert set(codes[GUESSES_PER_WINDOW:]) == {429}
        refused = httpx.get(instance.url + "/v1/topics", headers={"Authorization": "Bearer tl_another"}, timeout=10)
        assert refused.status_code == 429 and 1 <= int(refused.headers["Retry-After"]) <= 60
        assert refused.json()["error"]["message"].startswith("too many unknown API keys from this address")
        # the wearer's own key, from the same address, is not locked out
        assert httpx.get(instance.url + "/v1/topics", headers={"Authorization": "Bearer k-real"},
                         timeout=10).status_code == 200
    finally:
        instance.stop()


def test_a_flood_of_unknown_keys_never_evicts_a_valid_one(store, tmp_path, monkeypatch) -> None:
    ring = KeyRing(Settings(data_dir=tmp_path / "data"), store)
    valid = make_key(store, "glasses")
    assert ring.check(valid)
    asked: list[str] = []
    real = security.key_role
    monkeypatch.setattr(security, "key_role", lambda s, digest: asked.append(digest) or real(s, digest))
    for i in range(MAX_REMEMBERED + 10):  # no client address: the per-address throttle is not what is tested
        assert ring.check(f"tl_guess_{i}") is None
    asked.clear()
    assert ring.check(valid)
    assert asked == [], "the valid key was forgotten and asked of the store again"


def _cli(data_dir: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRENDLENS_")}
    env["TRENDLENS_DATA_DIR"] = str(data_dir)
    done = subprocess.run([sys.executable, "-m", "agent", "keys", *args], env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    return done.stdout


def test_a_key_is_minted_on_a_first_start_only_not_after_every_key_was_revoked(tmp_path: Path) -> None:
    data = tmp_path / "serve"
    instance = start_instance(data, api_keys="")  # no configured keys: the first start makes one
    try:
        assert instance.log_tail(100_000).count(ANNOUNCED) == 1
        key_id = _cli(data, "list").split()[0]
        instance.stop()
        _cli(data, "revoke", key_id)
        instance.start()
        log = instance.log_tail(100_000)
        assert log.count(ANNOUNCED) == 1, "a new key was minted behind the operator's revocation"
        assert "every stored API key is revoked" in log
        assert key_id not in _cli(data, "list")
    finally:
        instance.stop()


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_stored_keys_are_answered_before_the_guess_throttle_of_their_address(store, tmp_path, monkeypatch) -> None:
    clock = _Clock()
    ring = KeyRing(Settings(data_dir=tmp_path / "data"), store, clock=clock)
    nat = "203.0.113.7"  # a sprayer and two wearers behind one address
    seen_before = make_key(store, "wearer seen here")
    assert ring.check(seen_before, client=nat)
    for i in range(GUESSES_PER_WINDOW):
        assert ring.check(f"tl_guess_{i}", client=nat) is None
    with pytest.raises(security.TooManyGuesses):
        ring.check("tl_guess_more", client=nat)

    clock.now += security.KNOWN_RECHECK_S + 1  # its answer is due a recheck: still not throttled
    assert ring.check(seen_before, client=nat)
    made_elsewhere = make_key(store, "wearer new here")  # never seen by this instance
    assert ring.check(made_elsewhere, client=nat)

    asked: list[str] = []
    real = security.key_role
    monkeypatch.setattr(security, "key_role", lambda s, digest: asked.append(digest) or real(s, digest))
    for i in range(50):  # the sprayer goes on: 429 each time, the store asked once an interval at most
        with pytest.raises(security.TooManyGuesses):
            ring.check(f"tl_spray_{i}", client=nat)
    assert len(asked) <= 1
