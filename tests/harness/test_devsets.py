"""The lines a load run says: each dev line once as written, then behind an opener, never twice."""

from __future__ import annotations

from itertools import islice

from harness.devsets import distinct


def test_a_load_run_never_says_a_line_twice() -> None:
    lines = ["春晚机器人扭秧歌你们看了吗", "did you see the Starship launch", "油价又降了"]
    said = list(islice(distinct(lines), len(lines) * 400))  # past every pair of openers
    assert [text for _, _, text in said[:3]] == lines  # the first pass is the lines as written
    assert len({text for _, _, text in said}) == len(said)
    assert all(text.endswith(lines[i]) for i, _, text in said)  # each still says its own line
    zh_again = [text for i, p, text in said if i == 0 and p > 0]
    en_again = [text for i, p, text in said if i == 1 and p > 0]
    assert zh_again[0] == "嗯，" + lines[0] and en_again[0] == "so, " + lines[1]  # openers of the line's language
