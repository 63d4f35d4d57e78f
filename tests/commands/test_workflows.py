"""`trendlens workflows`: validating files and refusing to run an event workflow on demand."""

from __future__ import annotations

from agent.commands.cli import main
from tests.engine.helpers import write


def test_cli_validate_and_list(tmp_path, capsys):
    assert main(["workflows", "validate"]) == 0
    bad = write(tmp_path, "x.yaml", "name: x\ntrigger: manual\nsteps: [warp]\n")
    assert main(["workflows", "validate", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:3: unknown step 'warp'" in err and "Traceback" not in err


def test_cli_refuses_to_run_an_event_workflow_on_demand(capsys):
    assert main(["workflows", "run", "live_captions", "--offline"]) == 2
    assert "runs on 'utterance' events, not on demand" in capsys.readouterr().err

