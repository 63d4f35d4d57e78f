"""The digest reads the story view the index published: its stories and the occasions they sit under
are shown as they are, never found again over the topics shown."""

from __future__ import annotations

from dataclasses import replace

from agent.answers.digest import build_digest
from agent.stories.grouping import StoryIndex
from agent.stories.occasions import Occasion, occasion_of
from tests.stories.test_occasions import night


def test_the_digest_folds_the_occasions_of_the_published_view(store) -> None:
    topics = night()
    store.ingest(topics)
    index = StoryIndex()
    index.update(topics)
    view = index.published
    (gala,) = view.occasions
    digest = build_digest(store, limit=20, view=view)
    (entry,) = [i for i in digest.items if i.occasion]
    assert entry.cluster_id == gala.id and entry.occasion == {"id": gala.id, "title": gala.title, "word": "春晚"}
    assert {s["cluster_id"] for s in entry.stories} == set(gala.story_ids)


def test_an_occasion_the_view_does_not_hold_is_not_found_again(store) -> None:
    topics = night()
    store.ingest(topics)
    index = StoryIndex()
    index.update(topics)
    # the same stories published without occasions: the digest lists each story as its own entry
    bare = replace(index.published, occasions=(), occasion_of={})
    digest = build_digest(store, limit=200, view=bare)
    assert not any(i.occasion for i in digest.items)
    assert len(digest.items) == len(bare.stories)
    # and an occasion the view names is the one shown, with its own id and title
    two = tuple(s.id for s in bare.stories[:2])
    named = Occasion("o-test", "晚会", "今晚的晚会", two)
    digest = build_digest(store, limit=200, view=replace(bare, occasions=(named,), occasion_of=occasion_of((named,))))
    (entry,) = [i for i in digest.items if i.occasion]
    assert entry.cluster_id == "o-test" and entry.title == "今晚的晚会"
    assert {s["cluster_id"] for s in entry.stories} == set(two)
