"""BM25 over Chinese bigrams and words: tokens, paraphrase matches, scaling by postings."""

from __future__ import annotations

import numpy as np

from agent.ranking import BM25Index, tokenize


def test_tokenize_cjk_bigrams_and_words() -> None:
    assert tokenize("春晚机器人") == ["春晚", "晚机", "机器", "器人"]
    assert tokenize("小米SU7 Ultra！") == ["小米", "su7", "ultra"]
    assert tokenize("ＧＰＴ－５ the Prices") == ["gpt", "5", "price"]  # NFKC, stop word, plural
    assert tokenize("你看那个机器人") == ["看那", "个机", "机器", "器人"]  # 你看/那个 dropped


def test_bm25_matches_chinese_paraphrase_by_bigrams() -> None:
    docs = ["春晚机器人扭秧歌", "刘谦春晚魔术揭秘", "人形机器人半程马拉松", "国内油价大跌"]
    idx = BM25Index(docs)
    s = idx.scores("昨天春晚那几个机器人扭秧歌跳得真齐")
    assert int(np.argmax(s)) == 0
    assert s[3] == 0.0
    assert idx.scores("完全无关的话").max() == 0.0


def test_one_shared_term_does_not_match_a_short_chinese_title() -> None:
    # synthetic titles in the style of Douyin's and Weibo's short phrases, beside a long one
    idx = BM25Index(["真姐夫", "打工人的周一", "小米SU7事故遇难者家属回应质疑", "Red Hat replaces CFO", "内涵",
                     "初一饺子馅大赛"])
    assert idx.scores("姐.反正有姐夫养着你")[0] == 0.0  # 姐夫 alone is not 真姐夫
    assert idx.scores("这周一又要早起")[1] == 0.0  # 周一 alone is not 打工人的周一
    assert idx.scores("真姐夫那个视频你看了吗")[0] > 0  # the whole title is
    assert idx.scores("打工人的周一太难了")[1] > 0
    assert idx.scores("家属说要等调查结果")[2] > 0  # a long title still matches on one shared term
    assert idx.scores("red cars are fast")[3] > 0  # English headlines are not "short titles"
    assert idx.scores("这话有内涵")[4] > 0  # a one-term title needs that term only
    assert idx.scores("菜齐了，饺子马上就出锅")[5] == 0.0  # nine characters or fewer is short
    assert idx.scores("今年初一饺子馅你们选什么")[5] > 0


def test_bm25_scales_to_many_docs_touching_only_postings() -> None:
    docs = [f"话题 {i} 标题" for i in range(20000)] + ["春晚机器人扭秧歌"]
    idx = BM25Index(docs)
    s = idx.scores("春晚机器人")
    assert int(np.argmax(s)) == 20000 and len(s) == 20001
