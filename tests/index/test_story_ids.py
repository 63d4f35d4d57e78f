"""Story ids through the real index and store: a story that spreads to another platform keeps the
id it was first shown and alerted under, and an occasion keeps its id across fetch cycles."""

from __future__ import annotations

from agent.index.topic_index import TopicIndex
from agent.ranking import HashEmbedder, Ranker
from tests.stories.helpers import topic
from tests.stories.test_occasions import MEMES, night


def _index(store) -> TopicIndex:
    index = TopicIndex(store)
    index.ranker = Ranker(HashEmbedder())
    return index


async def test_a_story_that_spreads_to_another_platform_keeps_its_id(store):
    # the night's lists without the second platform of the first meme ...
    topics = night()
    late = next(t for t in topics if t.id == "douyin:d1")
    store.ingest([t for t in topics if t is not late])
    index = _index(store)
    await index.refresh()
    shown = index.story_key("weibo:w1")
    occasion = index.occasion_of[shown].id
    # ... then the meme reaches Douyin: one story of two platforms, under the id it was shown with
    store.ingest([late])
    await index.refresh()
    assert index.story_key("douyin:d1") == index.story_key("weibo:w1") == shown
    assert len(index.view.members[shown]) == 2
    # and the occasion it sits under is the same occasion
    assert index.occasion_of[shown].id == occasion


async def test_an_occasion_keeps_its_id_across_cycles(store):
    topics = night()
    store.ingest(topics)
    index = _index(store)
    await index.refresh()
    first = {o.word: o.id for o in index.view.occasions}
    # a later cycle: a meme's items move down their lists, one more item says the occasion
    store.ingest([t.model_copy(update={"rank": (t.rank or 0) + 3}) for t in topics[: len(MEMES)]]
                 + [topic("zhihu", "z9", "春晚松竹梅之夜", rank=80, heat=1.0)])
    await index.refresh()
    assert {o.word: o.id for o in index.view.occasions} == first == {"春晚": first["春晚"]}
