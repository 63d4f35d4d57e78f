"""A re-index running in a worker thread lets a decision being answered go first."""

from __future__ import annotations

import sys
import threading

from agent.models import Topic
from agent.ranking import Ranker
from agent.ranking.pacing import answering
from agent.story_grouping import StoryIndex, background_of

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

    ranker = Ranker(None)
    worker = threading.Thread(target=ranker.index, args=(TOPICS,))
    with answering():  # holds the build inside, where the interval can be read
        worker.start()
        threading.Event().wait(0.1)
        seen.append(sys.getswitchinterval())
    worker.join()
    assert seen == [0.001] and sys.getswitchinterval() == before
