"""What a new user meets first: the demo beside a running service, readable doctor output,
one-line errors, and a log that starts with what the service does."""

from __future__ import annotations

import json
import logging
import re
import socket

import pytest

from agent.commands.cli import main


@pytest.fixture
def busy_port():
    """A port something else (say, `make run`) is listening on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_demo_beside_a_running_service_picks_a_free_port_and_prints_the_url(busy_port, capsys, monkeypatch):
    monkeypatch.setenv("TRENDLENS_EMBEDDER", "lexical")  # the model is not what this checks
    assert main(["demo", "--lang", "en", "--speed", "0", "--port", str(busy_port)]) == 0
    out = capsys.readouterr().out
    assert f"port {busy_port} is in use" in out
    served = re.search(r"serving on http://127\.0\.0\.1:(\d+)", out)
    assert served and int(served.group(1)) != busy_port
    assert re.search(rf"HUD: http://127\.0\.0\.1:{served.group(1)}/hud/s_\S+#token=\S+", out)
    assert "Traceback" not in out


def test_serve_on_a_busy_port_is_one_clear_line(busy_port, capsys):
    assert main(["serve", "--port", str(busy_port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"port {busy_port} on 127.0.0.1 is in use" in err and "--port" in err


def test_a_badly_typed_setting_is_one_clear_line(capsys, monkeypatch):
    monkeypatch.setenv("TRENDLENS_PORT", "eighty")
    assert main(["doctor", "--no-model"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("trendlens: error: invalid setting port (TRENDLENS_PORT)")


def test_an_unexpected_failure_is_one_line_without_traceback(capsys, monkeypatch):
    from agent.commands import doctor

    def broken(args):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(doctor, "run", broken)
    assert main(["doctor"]) == 1
    err = capsys.readouterr().err
    assert err == "trendlens: unexpected error: RuntimeError: disk on fire (run with -v for the traceback)\n"


def test_doctor_prints_a_table_and_json_on_request(capsys):
    assert main(["doctor", "--no-model"]) == 0
    out = capsys.readouterr().out
    assert "TrendLens doctor" in out and "│ torch" in out and "not loaded (--no-model)" in out
    assert "{'" not in out and "': " not in out  # no Python repr
    assert main(["doctor", "--no-model", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["packages"]["torch"] and report["topics"] == 0


async def test_scheduler_job_registration_stays_below_info(tmp_path, caplog, store):
    from agent.collect.collector import Collector
    from agent.collect.scheduling import build_scheduler
    from agent.logs import configure_logging
    from agent.settings import Settings

    configure_logging(verbose=False)
    settings = Settings(data_dir=tmp_path, offline=True)
    caplog.set_level(logging.INFO)
    scheduler = build_scheduler(Collector(settings, store), first_run_now=False)
    scheduler.start(paused=True)
    scheduler.shutdown(wait=False)
    chatter = [r.getMessage() for r in caplog.records if r.name.startswith("apscheduler") and r.levelno >= logging.INFO]
    assert not any("job" in m.lower() for m in chatter), chatter
