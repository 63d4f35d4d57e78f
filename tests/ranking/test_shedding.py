"""Under overload the ranker answers from the lexical channel instead of queueing behind the model."""

from __future__ import annotations

import asyncio
import threading

from agent.models import Topic
from agent.ranking import HashEmbedder, MicroBatcher, Ranker


class SlowEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def encode(self, texts, *, role="query"):
        self.release.wait(5)
        return super().encode(texts, role=role)


async def test_deep_model_queue_sheds_to_lexical():
    topics = [Topic(source="weibo", item_id=str(i), title=t) for i, t in
              enumerate(["春晚机器人扭秧歌", "哪吒2票房破百亿", "春运返程高峰"])]
    embedder = SlowEmbedder()
    ranker = Ranker(embedder, topics, batcher=MicroBatcher(embedder, max_items=1), shed_queue_depth=2)
    waiting = [asyncio.create_task(ranker.rank(f"春晚 {i}", top_k=1)) for i in range(4)]
    await asyncio.sleep(0.2)  # one encode runs, the rest queue up
    result = await asyncio.wait_for(ranker.rank("哪吒2票房破百亿了", top_k=1), 1)
    assert result[0].topic.title == "哪吒2票房破百亿" and result[0].components["dense"] == 0.0
    assert ranker.shed >= 1
    embedder.release.set()
    await asyncio.gather(*waiting)
    ranker.batcher.close()
