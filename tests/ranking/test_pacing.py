"""A re-index running in a worker thread lets a decision being answered go first, and leaves nothing for
the cycle collector to walk."""

from __future__ import annotations

import gc
import sys
import threading
import time

from agent.models import Topic
from agent.ranking import Ranker
from agent.ranking.fair_heat import normalised_heat
from agent.ranking.pacing import MAX_WAIT_S, SORT_RUN, answering, building, paced, sorted_paced
from agent.stories.grouping import StoryIndex, background_of

TOPICS = [Topic(source="weibo", item_id=str(i), title=f"第{i}个热搜 春晚机器人扭秧歌") for i in range(60)]


def test_a_rebuild_waits_while_a_decision_is_being_answered_then_finishes():
    ranker = Ranker(None)
    done = threading.Event()

    def rebuild() -> None:
        ranker.index(TOPICS)  # alone: a few milliseconds
        done.set()

    with answering():
        worker = threading.Thread(target=rebuild)
        worker.start()
        assert not done.wait(0.5)  # stepped aside the whole time the decision ran
        assert len(ranker) == 0  # the index the decision reads is the one it started with
    assert done.wait(5)
    worker.join()
    assert len(ranker) == len(TOPICS)


def test_a_story_update_steps_aside_too():
    stories = StoryIndex(background=background_of(None))
    done = threading.Event()
    worker = threading.Thread(target=lambda: (stories.update(TOPICS), done.set()))
    with answering():
        worker.start()
        assert not done.wait(0.5)
    assert done.wait(5)
    worker.join()


def test_the_interpreter_switches_threads_more_often_only_while_a_build_runs():
    before = sys.getswitchinterval()
    seen: list[float] = []
    thresholds = gc.get_threshold()
    held: list[tuple[int, ...]] = []

    ranker = Ranker(None)
    worker = threading.Thread(target=ranker.index, args=(TOPICS,))
    with answering():  # holds the build inside, where the interval can be read
        worker.start()
        threading.Event().wait(0.1)
        seen.append(sys.getswitchinterval())
        held.append(gc.get_threshold())
    worker.join()
    assert seen == [0.001] and sys.getswitchinterval() == before
    # no collection starts meanwhile: even a young one walks every reference of a build's new row tuples
    assert min(held[0]) >= 2**30
    assert gc.get_threshold() == thresholds


def test_a_build_sets_off_no_collection_not_even_at_its_end():
    # each collection visits every reference of the build's new row tuples and maps; 1,000 topics
    # allocate about 17,000 objects, 25 times the usual threshold
    topics = [Topic(source="weibo", item_id=str(i), title=f"第{i}个热搜 春晚机器人扭秧歌", heat=float(i))
              for i in range(1000)]
    collections: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        Ranker(None).index(topics)
    finally:
        gc.callbacks.remove(seen)
    assert collections == []  # what is young at its end is frozen, not walked


def test_what_a_build_leaves_is_frozen_so_no_collection_walks_the_index_again():
    assert gc.isenabled()
    ranker = Ranker(None)
    snap = ranker.index(TOPICS)
    tracked = {id(o) for o in gc.get_objects()}  # the frozen are not among them
    assert id(snap) not in tracked and id(snap.entries[0]) not in tracked


def _cycle_of_builds(start: int, ranker: Ranker, stories: StoryIndex) -> None:
    # new objects every time, the list moving on by ten: every row is matched, some dropped, some new
    topics = [Topic(source="weibo" if i % 2 else "zhihu", item_id=str(i), title=f"第{i % 40}个热搜 春晚机器人扭秧歌",
                    heat=1000.0 - i) for i in range(start, start + 60)]
    snap = ranker.index(topics)
    stories.update([e.topic for e in snap.entries], None, ids=snap.ids)


def test_a_replaced_index_is_freed_by_its_reference_count():
    # what a build leaves is frozen, so garbage in a reference cycle would never be collected
    ranker, stories = Ranker(None), StoryIndex(background=background_of(None))
    for start in (0, 10, 20):  # every title and cache entry seen
        _cycle_of_builds(start, ranker, stories)
    gc.collect()
    gc.disable()  # and so nothing is frozen: the garbage stays where a collection finds it
    try:
        for start in (0, 10, 20) * 3:
            _cycle_of_builds(start, ranker, stories)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0, f"nine re-indexes left {unreachable} objects only the cycle collector frees"


def test_a_paced_sort_is_the_stable_sort():
    items = [(i * 7919 % 1013, i) for i in range(3 * SORT_RUN + 17)]
    assert sorted_paced(items, key=lambda x: x[0]) == sorted(items, key=lambda x: x[0])
    assert sorted_paced(items) == sorted(items)
    assert sorted_paced(iter(items[:5])) == sorted(items[:5])


def test_a_paced_loop_of_a_build_waits_between_its_items_while_a_decision_is_answered():
    # a comprehension over a whole region or a big story: each item cheap, their sum a long stretch
    taken: list[int] = []

    def build() -> None:
        with building():
            for item in paced(range(400), every=4):
                taken.append(item)

    with answering():
        started = time.monotonic()
        worker = threading.Thread(target=build)
        worker.start()
        threading.Event().wait(0.2)
        count, waited = len(taken), time.monotonic() - started
        # every fourth item waited its turn, `MAX_WAIT_S` each: 5 s for the whole list
        assert count <= 4 * (waited / MAX_WAIT_S + 1)
    worker.join(100 * MAX_WAIT_S)
    assert taken == list(range(400))


def test_a_request_reading_fair_heat_never_waits_on_a_decision():
    # the digest and story answers read fair heat, whose loop steps aside when run by a build
    with answering():
        started = time.perf_counter()
        normalised_heat(TOPICS)
        assert time.perf_counter() - started < 0.05  # 60 steps aside would wait 3 s
