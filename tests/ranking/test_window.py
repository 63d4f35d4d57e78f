"""The conversation window joins a recogniser's pieces of one sentence, and no more than one sentence."""

from __future__ import annotations

import logging

from agent.ranking import ConversationWindow, truncate_text
from agent.ranking.window import MAX_PIECES, sentence_limit

# Recognised table talk: no punctuation, each piece within a second of the one before.
ZH_PIECES = ["你们看今年春晚没有", "那个魔术我跟着撕牌了", "最后手里那半张居然对上了", "我妈撕得满桌都是纸片",
             "还非说是我数错了", "这虾谁剥的啊个头这么大", "多少钱一斤啊今年", "明年咱也去西安转转吧",
             "带爸妈看看兵马俑", "吃个肉夹馍再回来", "初六返程估计又堵", "高速上全是车"] * 25


def test_a_long_unpunctuated_run_is_cut_into_sentences() -> None:
    window = ConversationWindow()
    for i, piece in enumerate(ZH_PIECES):  # 300 pieces, 0.5 s apart: every one "continues" the last
        window.add(f"{piece}{i}", ts=1000.0 + 0.5 * i)
        newest = window.utterances()[-1]
        assert len(newest.text) <= sentence_limit(newest.text) and newest.pieces <= MAX_PIECES
    held = window.utterances()
    assert len(held) == 8  # the window's own bound: it holds sentences, not one run of talk
    assert all(len(u.text) <= 64 for u in held)
    assert max(u.pieces for u in held) > 1  # pieces are still joined, up to the bound


def test_joining_stops_at_the_pieces_bound_for_short_pieces() -> None:
    window = ConversationWindow()
    for i in range(3 * MAX_PIECES):
        window.add(f"嗯对{i}", ts=10.0 + 0.3 * i)
    assert [u.pieces for u in window.utterances()] == [MAX_PIECES] * 3


def test_english_sentences_are_bounded_too() -> None:
    window = ConversationWindow()
    for i in range(200):
        window.add(f"and then the host said something about the cards number {i}", ts=10.0 + 0.5 * i)
    assert all(len(u.text) <= sentence_limit(u.text) for u in window.utterances())
    assert len(window.newest()) <= 320


def test_a_sentence_in_two_pieces_is_still_one_utterance() -> None:
    window = ConversationWindow()
    window.add("刚才刘谦那个魔术我跟着撕牌了", ts=10.0)
    window.add("最后手里那半张居然真对上了", ts=11.0)
    assert window.newest() == "刚才刘谦那个魔术我跟着撕牌了最后手里那半张居然真对上了" and len(window) == 1


def test_the_window_says_whether_its_newest_sentence_may_go_on() -> None:
    window = ConversationWindow()
    assert window.open_sentence() == (False, False)
    window.add("刚才刘谦那个魔术我跟着撕牌了", ts=10.0)
    assert window.open_sentence() == (False, True)  # one piece, no sentence end: more may follow
    window.add("最后手里那半张居然真对上了", ts=11.0)
    assert window.open_sentence() == (True, True)  # joined: this recogniser cuts sentences
    window.add("你们看了吗？", ts=20.0)
    assert window.open_sentence() == (False, False)  # a sentence end: nothing more joins it
    for i in range(MAX_PIECES):
        window.add(f"嗯对{i}", ts=30.0 + 0.3 * i)
    assert window.open_sentence() == (True, False)  # at the pieces bound the next piece starts anew


def test_the_partials_of_a_sentence_s_rest_replace_each_other() -> None:
    """A recogniser streams the words so far of each piece, then its final: the rest of a sentence said
    as partials joins it once, not once per partial."""
    window = ConversationWindow()
    assert not window.add("说起来二舅", ts=10.0)
    assert window.add("今年", ts=10.8, partial=True)  # the rest begins: it goes on with the sentence
    assert window.add("今年咋没", ts=11.0, partial=True)
    assert window.add("今年咋没来", ts=11.3)
    (only,) = window.utterances()
    assert only.text == "说起来二舅今年咋没来" and only.pieces == 2 and only.partial == 0
    window.add("so the", ts=20.0, partial=True)
    window.add("so the magician tore", ts=20.4)
    window.add("the cards", ts=21.0, partial=True)
    window.add("the cards in half", ts=21.3)
    assert window.newest() == "so the magician tore the cards in half"


def test_a_partial_and_its_final_are_one_piece() -> None:
    window = ConversationWindow()
    window.add("刚才刘谦那个", ts=10.0)
    window.add("刚才刘谦那个魔术", ts=10.4)
    window.add("我跟着撕牌了", ts=11.0)
    (only,) = window.utterances()
    assert only.text == "刚才刘谦那个魔术我跟着撕牌了" and only.pieces == 2


def test_window_truncates_with_a_logged_warning(caplog) -> None:
    text = "啊" * 10 + "春晚机器人" * 1000
    with caplog.at_level(logging.WARNING, logger="agent.ranking.window"):
        out = truncate_text(text, 100)
    assert len(out) == 100 and out.endswith("机器人")
    assert any("truncated" in r.getMessage() for r in caplog.records)
    win = ConversationWindow(max_chars=50)
    with caplog.at_level(logging.WARNING, logger="agent.ranking.window"):
        win.add("x" * 1_000_000)
    assert len(win.text()) == 50


def test_window_recency_weights_and_expiry() -> None:
    win = ConversationWindow(half_life_s=10, max_age_s=60, position_decay=1.0)
    win.add("old", ts=0)
    win.add("mid", ts=50)
    win.add("new", ts=60)
    weights = dict(win.weights())
    assert weights["new"] == 1.0 and 0.4 < weights["mid"] < 0.6 and weights["old"] < 0.02
    win.add("latest", ts=100)
    assert [u.text for u in win.utterances()] == ["mid", "new", "latest"]  # "old" aged out
    win.add("   ")
    assert len(win) == 4

