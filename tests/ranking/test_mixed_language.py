"""A session that switches language is judged, line by line, by the gate of the line just said.

Each language has its own gate (profiles.json). The window of a session that mixes Chinese and
English lines holds both scripts; the gate must follow the newest utterance, not whichever
script the older lines hold. The profiles here make one language's gate unreachable so the
language the gate used shows in whether anything is captioned.
"""

from __future__ import annotations

import pytest

from agent.models import Topic
from agent.ranking import ConversationWindow, HashEmbedder, Ranker, profile_for

from .conftest import relevance_query

TITLES = [("hn", "gpt5", "OpenAI releases GPT-5"), ("weibo", "robot", "春晚机器人扭秧歌"),
          ("google", "eggs", "Egg prices hit record high amid bird flu")]
ZH_SMALL_TALK = "今天路上堵死了"
EN_MENTION = "did you see that openai releases gpt-5"
ZH_MENTION = "春晚那个机器人扭秧歌太好笑了"
EN_SMALL_TALK = "pass me the salt please"


def _ranker(closed: str) -> Ranker:
    """A ranker whose `closed` language's gate no match can pass."""
    profile = profile_for("hash-").with_lang(closed, gate=10.0, gate_lexical=10.0)
    return Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t) for s, i, t in TITLES], profile=profile)


async def _say(ranker: Ranker, lines: list[str]) -> list[str]:
    window = ConversationWindow()
    for k, line in enumerate(lines):
        window.add(line, ts=float(k))
    ranked = await ranker.rank(relevance_query(window, top_k=1, gate=True, latest=lines[-1], latest_top_k=10))
    return [r.topic.title for r in ranked]


@pytest.mark.parametrize(("lines", "title"), [([ZH_SMALL_TALK, EN_MENTION], "OpenAI releases GPT-5"),
                                              ([EN_SMALL_TALK, ZH_MENTION], "春晚机器人扭秧歌")])
async def test_each_line_passes_the_gate_of_its_own_language(lines: list[str], title: str) -> None:
    other = "zh" if lines[-1] == EN_MENTION else "en"
    assert await _say(_ranker(other), lines) == [title]  # the older line's closed gate does not apply


@pytest.mark.parametrize("lines", [[ZH_SMALL_TALK, EN_MENTION], [EN_SMALL_TALK, ZH_MENTION]])
async def test_a_closed_gate_of_the_newest_lines_language_keeps_quiet(lines: list[str]) -> None:
    newest = "en" if lines[-1] == EN_MENTION else "zh"
    assert await _say(_ranker(newest), lines) == []
