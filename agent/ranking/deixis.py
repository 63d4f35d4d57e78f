"""What the table points at is not news: the family's own things, and the dish in front of them.

At a festival dinner the hot lists carry lifestyle entries (whether some kitchen habit is healthy, a gadget's
maker), and the table talks about the very same things as its own: "这盘饺子的馅你调的吧",
"咱家那个冰箱又不制冷了". Chinese says which by pointing: a thing the household owns
(咱家 / 我家 / 你家 …, `HOUSEHOLD`) or one on the table, named with 这 and a measure word of dishes and
vessels (这锅, 这盘, 这碗 …, `ON_THE_TABLE`). What such a phrase governs (to the end of its clause, at most
`GOVERNS` characters) is the speaker's own and shares no words with a list entry; the line's meaning
(the dense channel) is unchanged. A clause that points at news as well ("咱家群里那个视频",
`everyday.asks`) keeps its words.

General grammar, not any night's lists: the measure words are those of food and tableware, and a
meme is pointed at with 那个 ("那个魔术", "那个小品"), which neither pattern reads. Measured on both festival
nights and their slower tables (docs/relevance.md, "What the table points at").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .everyday import asks

__all__ = ["GOVERNS", "HOUSEHOLD", "ON_THE_TABLE", "at_the_table", "parts_at_the_table", "pointed_out"]

#: A household's own: our, my, your family's (咱家那个冰箱, 我家的狗). Not a person of it (我家孩子说…,
#: 我家那口子…): what they say or watch may be the night's news.
HOUSEHOLD = re.compile(r"(?:咱们家|我们家|你们家|咱家|我家|你家|您家|自家)(?:的|里的|里)?(?:那个|这个|那|这)?")
_PERSON = re.compile(r"(?:的|里的|里)?(?:那个|这个|这)?"
                     r"(?:孩子|老人|小孩|宝宝|那口子|老公|老婆|媳妇|爸|妈|爷|奶|姥|哥|姐|弟|妹|闺女|儿子|女儿|孙|亲戚)")
#: One on the table: 这 with a measure word of dishes and vessels (这锅汤, 这盘菜, 这碗面). Not 条 or 件,
#: which also count news (这条热搜, 这件事).
ON_THE_TABLE = re.compile(r"这(?:锅|盘|碗|杯|瓶|壶|碟|桌|顿|道|块|只)")
_CLAUSE_END = re.compile(r"[，,。！？!?；;：:、\s]")
#: The most characters a pointing phrase governs: its noun phrase ("那个洗碗机", "汤上面漂的那层油"), not
#: the rest of a line a recogniser wrote without a comma.
GOVERNS = 8
_MARK = "，"  # what a governed span reads as: a clause break, which no term crosses


def pointed_out(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that a household's thing or a dish on the table governs: to its clause's end,
    at most `GOVERNS` characters past the pointing word."""
    spans = []
    for pattern in (HOUSEHOLD, ON_THE_TABLE):
        for m in pattern.finditer(text):
            if pattern is HOUSEHOLD and _PERSON.match(text, m.start() + m.group().index("家") + 1):
                continue
            end = _CLAUSE_END.search(text, m.end())
            stop = min(end.start() if end else len(text), m.end() + GOVERNS)
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
