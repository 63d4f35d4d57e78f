"""A Chinese line naming a person reaches a short title of that name (names_said.py).

Synthetic titles, written here, as a Douyin list words them: short, with no excerpt.
"""

from __future__ import annotations

from agent.models import Topic
from agent.ranking import HashEmbedder, Ranker
from agent.ranking.names_said import people_named
from agent.ranking.window import ConversationWindow

from .conftest import relevance_query

ENTRIES = [("douyin", "xz", "肖战龙头帽"), ("douyin", "jf", "真姐夫"), ("douyin", "w", "今天天气晴朗适合出游"),
           ("douyin", "h", "华为发布新款折叠屏手机"), ("douyin", "z", "如何评价某电视剧大结局")]


def test_the_tagger_reads_the_people_a_line_names() -> None:
    assert people_named("你看肖战那顶帽子，太可爱了") == {"肖战"}
    assert people_named("反正有姐夫养着你") == frozenset()  # a kinship word is nobody's name
    assert people_named("Did you see Xiao Zhan?") == frozenset()  # English lines have their bridges


async def test_a_line_naming_someone_reaches_the_short_title_of_their_name() -> None:
    """"肖战龙头帽" holds four bigrams, so a line sharing one had no lexical evidence for it (lexical.py's short
    titles). The line names the person, and that bigram is the whole name. A word that names nobody still
    needs a second one: 姐夫 brings "真姐夫" nothing."""
    ranker = Ranker(None, [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in ENTRIES])
    lexical = {r.topic.title: r.components["lexical"]
               for r in await ranker.rank(relevance_query("你看肖战那顶帽子，太可爱了", top_k=5))}
    assert lexical["肖战龙头帽"] > 0 and max(v for t, v in lexical.items() if t != "肖战龙头帽") == 0
    kin = {r.topic.title: r.components["lexical"]
           for r in await ranker.rank(relevance_query("反正有姐夫养着你", top_k=5))}
    assert kin["真姐夫"] == 0


async def test_the_name_counts_whole_with_earlier_lines_in_the_window() -> None:
    """With a model, the gate reads the line's words apart from bigrams across 的's seam; an earlier line
    holding such a seam ("亲手烧的，你") once dropped the name there, and the title scored nothing."""
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in ENTRIES])
    window = ConversationWindow()
    for at, line in enumerate(("这条鱼是他亲手烧的你尝尝", "你看肖战那顶帽子，太可爱了")):
        window.add(line, 1000.0 + 3 * at)
    found = await ranker.rank(relevance_query(window, top_k=1, gate=True, latest="你看肖战那顶帽子，太可爱了"))
    assert found and found[0].topic.title == "肖战龙头帽"


async def test_half_a_name_and_the_word_after_it_are_no_word_a_title_shares() -> None:
    """"玉莲一开嗓" and "睡莲一开满池香" share 莲一 and 一开, enough for a short title; but 莲一 is the edge of the
    name said, which the title does not hold: one word shared is not enough, and the gate passes nothing."""
    titles = [("douyin", "s", "睡莲一开满池香"), *ENTRIES]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in titles])
    line = "玉莲一开嗓，就觉得今年稳了。"
    assert people_named(line) == {"玉莲"}
    found = await ranker.rank(relevance_query(line, top_k=3, gate=True, latest=line))
    assert all(r.topic.title != "睡莲一开满池香" for r in found)
    # the title naming the person is still met on the name
    titles = [("douyin", "y", "玉莲一开满池香"), *ENTRIES]
    ranker = Ranker(HashEmbedder(), [Topic(source=s, item_id=i, title=t, rank=1) for s, i, t in titles])
    found = await ranker.rank(relevance_query(line, top_k=3, gate=True, latest=line))
    assert found and found[0].topic.title == "玉莲一开满池香"
