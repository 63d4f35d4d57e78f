"""The caption composer: one caption names the whole cross-platform story, and no LLM means no gloss."""

from __future__ import annotations

import pytest

from agent.captions.composer import CaptionComposer
from agent.collect.collector import Collector
from agent.index.topic_index import TopicIndex
from agent.platforms import caption_label
from agent.ranking import HashEmbedder, Ranked, Ranker
from agent.settings import Settings


@pytest.fixture
async def index(store, tmp_path):
    collector = Collector(Settings(data_dir=tmp_path / "data", offline=True), store)
    await collector.cycle()
    await collector.aclose()
    built = TopicIndex(store)
    built.ranker = Ranker(HashEmbedder())
    await built.refresh()
    return built


async def test_a_caption_names_every_platform_of_the_story(index):
    composer = CaptionComposer(index)
    story = max(index.cluster_list(), key=lambda c: len({m.source for m in c.members}))
    platforms = list(dict.fromkeys(m.source for m in story.members))[:2]
    assert len(platforms) == 2
    member = story.members[-1]  # whichever member matched, the caption speaks for the story
    ranked = Ranked(id=member.id, topic=member, score=0.9, components={})
    caption = composer.compose(ranked, profile="hud-web", session_id="s1")
    assert caption.topic_id == member.id and caption.session_id == "s1"
    assert all(caption_label(p) in caption.text for p in platforms), caption.text
    assert await composer.gloss(member.title, "", timeout_s=1) is None  # no LLM configured
