"""The MentraOS input side on its own: two recognisers' copies of one utterance are heard once."""

from __future__ import annotations

import asyncio

from agent.display.mentra_speech import Transcript, UtteranceAssembler


def _t(text: str, language: str, start: float, end: float, final: bool = True) -> Transcript:
    return Transcript(text=text, is_final=final, language=language, start_ms=start, end_ms=end)


async def test_both_copies_of_one_utterance_are_heard_once_in_the_right_language():
    heard: list[Transcript] = []

    async def hear(t: Transcript) -> None:
        heard.append(t)

    speech = UtteranceAssembler(hear, languages=("zh-CN", "en-US"), merge_window_s=5)
    await speech.feed(_t("Chun wan ji qi ren", "en-US", 0, 900))  # the English recogniser's guess
    assert heard == []  # waits for the other copy
    await speech.feed(_t("春晚机器人", "zh-CN", 10, 880))
    assert [t.text for t in heard] == ["春晚机器人"] and speech.language == "zh-CN"
    await speech.feed(_t("that was fun", "zh-CN", 2000, 2500, final=False))  # a partial in the lead language
    await speech.feed(_t("那个真好玩", "en-US", 2000, 2500, final=False))  # the other recogniser's noise
    assert [t.text for t in heard] == ["春晚机器人", "that was fun"]


async def test_a_lone_copy_is_heard_after_the_merge_window():
    heard: list[Transcript] = []

    async def hear(t: Transcript) -> None:
        heard.append(t)

    speech = UtteranceAssembler(hear, languages=("zh-CN", "en-US"), merge_window_s=0.05)
    await speech.feed(_t("hello there", "en-US", 0, 500))
    assert heard == []
    await asyncio.sleep(0.2)
    assert [t.text for t in heard] == ["hello there"]
    speech.close()
