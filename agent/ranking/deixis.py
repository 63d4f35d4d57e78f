"""What the table points at is not news: the family's own things, and the dish in front of them.

At a festival dinner the hot lists carry lifestyle entries ("炖肉时的浮沫是营养精华？假的", a robot vacuum's
maker), and the table talks about the very same things as its own: "这锅炖肉上面的浮沫你撇了没",
"咱家那个扫地机器人又卡沙发底下了". Chinese says which by pointing: a thing the household owns
(咱家 / 我家 / 你家 …, `HOUSEHOLD`) or one on the table, named with 这 and a measure word of dishes and
vessels (这锅, 这盘, 这碗 …, `ON_THE_TABLE`). What such a phrase governs, to the end of its clause, is the
speaker's own and shares no words with a list entry; the line's meaning (the dense channel) is
unchanged. A clause that points at news as well ("咱家群里那个视频", `everyday.asks`) keeps its words.

General grammar, not any night's lists: the measure words are those of food and tableware, and a
meme is pointed at with 那个 ("刘谦那个魔术"), which neither pattern reads. Measured on both festival
nights and their slower tables (docs/relevance.md, "What the table points at").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .everyday import asks

__all__ = ["HOUSEHOLD", "ON_THE_TABLE", "at_the_table", "parts_at_the_table", "pointed_out"]

#: A household's own: our, my, your family's (咱家那个扫地机器人, 我家的狗).
HOUSEHOLD = re.compile(r"(?:咱们家|我们家|你们家|咱家|我家|你家|您家|自家)(?:的|里的|里)?")
#: One on the table: 这 with a measure word of dishes and vessels (这锅炖肉, 这盘菜, 这碗汤). Not 条 or 件,
#: which also count news (这条热搜, 这件事).
ON_THE_TABLE = re.compile(r"这(?:锅|盘|碗|杯|瓶|壶|碟|桌|顿|道|块|只)")
_CLAUSE_END = re.compile(r"[，,。！？!?；;：:、\s]")
_MARK = "，"  # what a governed span reads as: a clause break, which no term crosses


def pointed_out(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that a household or a dish on the table governs, each to its clause's end."""
    spans = []
    for pattern in (HOUSEHOLD, ON_THE_TABLE):
        for m in pattern.finditer(text):
            end = _CLAUSE_END.search(text, m.end())
            stop = end.start() if end else len(text)
            if not asks(text[m.start():stop]):
                spans.append((m.start(), stop))
    return spans


def at_the_table(text: str) -> str:
    """`text` with what it points at on the table read as a clause break (its words are no evidence)."""
    spans = pointed_out(text)
    if not spans:
        return text
    chars = list(text)
    for start, stop in spans:
        chars[start:stop] = _MARK * (stop - start)
    return "".join(chars)


def parts_at_the_table(parts: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """Each (utterance, weight) of a window read by `at_the_table`."""
    return [(at_the_table(text), weight) for text, weight in parts]
