"""The first thing a new user runs: the offline demo, end to end with the real default model."""

from __future__ import annotations

from agent.commands.cli import main


def test_demo_runs_offline_and_shows_captions_and_silence(capsys):
    assert main(["demo", "--speed", "0", "--port", "0"]) == 0
    out = capsys.readouterr().out
    assert "spring festival dinner" in out and "english dinner" in out
    assert "机器人扭秧歌" in out  # the robots the uncle talks about appear on the glasses
    assert "DeepSeek" in out and "quiet" in out  # ...and chit-chat stays quiet
    assert "24 utterances" in out
    # each box is headed by the platforms' labels, as the caption names them, never raw source ids
    assert "👓 " in out and "weibo+" not in out and "baidu+" not in out


def test_demo_rejects_a_broken_script(tmp_path, capsys):
    script = tmp_path / "talk.jsonl"
    script.write_text('{"t": 0, "text": "hi"}\nnot json\n', encoding="utf-8")
    assert main(["demo", "--script", str(script), "--speed", "0", "--port", "0"]) == 2
    assert f"{script}:2:" in capsys.readouterr().err
