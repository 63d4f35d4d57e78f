"""A name a recogniser wrote in characters of the same sound is read as the name (`PinyinNames.misheard`).

Synthetic titles and lines, written here; the substitutes are what a Chinese recogniser writes for a
character heard right (肖站 for 肖战: xiao zhan either way).
"""

from __future__ import annotations

import pytest

import agent.ranking.ranker as ranker_module
from agent.models import Topic
from agent.ranking import Ranker
from agent.ranking.lexical import BM25Index
from agent.ranking.pinyin_names import PinyinNames

from .conftest import relevance_query

TITLES = [("douyin", "xz", "肖战龙头帽"), ("douyin", "jf", "真姐夫"), ("douyin", "w", "今天天气晴朗适合出游"),
          ("douyin", "h", "华为发布新款折叠屏手机"), ("douyin", "z", "如何评价某电视剧大结局")]


def _names(titles: list[str]) -> tuple[PinyinNames, BM25Index]:
    index = BM25Index(titles)
    names = PinyinNames()
    names.refresh(index.vocabulary(), index)
    return names, index


def test_a_run_no_title_holds_that_reads_as_a_name_is_respelt_as_the_name() -> None:
    names, index = _names([t for _, _, t in TITLES])
    def person(run: str) -> set[str]:
        return {"肖战"} if "肖战" in run else set()

    assert names.misheard("你看肖站那顶帽子，太可爱了", index.vocabulary(), person) == "你看肖战那顶帽子，太可爱了"
    # the same sound where no headline names anyone by it stays as it was said
    assert names.misheard("你看肖站那顶帽子", index.vocabulary(), lambda run: set()) == "你看肖站那顶帽子"
    # both characters other ones is another word that sounds alike, not a name heard wrong
    assert names.misheard("小站那边人多", index.vocabulary(), person) == "小站那边人多"
    # a character heard wrong beside the name is not the name's: "肖战龙头冒" stays
    assert names.misheard("肖战龙头冒", index.vocabulary(), person) == "肖战龙头冒"
    # a word of its own said where a name would read the same is the word: 肖站 here is no word, 小站 would be
    assert names.misheard("你看肖站那顶帽子", index.vocabulary(), person, {"肖站"}) == "你看肖站那顶帽子"
    # nor is half of a word across the name's edge (站台 is a word: its 站 is not the name's)
    assert names.misheard("肖站台那边人多", index.vocabulary(), person, {"站台"}) == "肖站台那边人多"
    # a line the titles spell as it is needs nothing
    assert names.misheard("肖战龙头帽真好看", index.vocabulary(), person) == "肖战龙头帽真好看"


async def test_a_misheard_name_reaches_the_short_title_of_the_name() -> None:
    """"肖站" is a bigram no title holds: the line met "肖战龙头帽" on nothing. Read as the headline spells the
    person, the name is the short title's whole match, as when it is written right."""
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in TITLES])
    lexical = {r.topic.title: r.components["lexical"]
               for r in await ranker.rank(relevance_query("你看肖站那顶帽子，太可爱了", top_k=5))}
    assert lexical["肖战龙头帽"] > 0
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in TITLES], bridges=())
    off = {r.topic.title: r.components["lexical"]
           for r in await ranker.rank(relevance_query("你看肖站那顶帽子，太可爱了", top_k=5))}
    assert off["肖战龙头帽"] == 0


def test_one_line_tags_a_bounded_number_of_headlines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run a line may have misheard asks which people the headlines holding it name, a millisecond of the
    tagger per new headline: one line reads at most `LINE_TITLES` headlines, however many runs it holds."""
    titles = [("douyin", f"xz{i}", f"肖战龙头帽第{i}期") for i in range(40)]
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in titles])
    read: list[str] = []

    def counted(title: str) -> frozenset[str]:
        read.append(title)
        return frozenset({"肖战"})

    monkeypatch.setattr(ranker_module, "people_in", counted)
    line = "肖站说肖栈和肖湛还有肖绽都来了"
    parts, _ = ranker._respelt([(line, 1.0)], relevance_query(line), ranker.snapshot)
    assert 0 < len(read) <= ranker_module.LINE_TITLES
    assert parts[0][0].startswith("肖战")  # the first run asked about is respelt
