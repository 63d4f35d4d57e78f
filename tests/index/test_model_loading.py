"""The service starts without its model: ranking falls back to lexical, and says why."""

from __future__ import annotations

from agent.index.model_loading import fixed_embedder, load_ranker
from agent.ranking import HashEmbedder
from agent.settings import Settings


async def test_a_model_that_cannot_load_leaves_a_lexical_ranker_and_the_reason(tmp_path):
    settings = Settings(data_dir=tmp_path, device="cpu", embedder=f"st:{tmp_path / 'no-such-model'}")
    loaded = await load_ranker(settings)
    assert loaded.ranker.embedder is None and loaded.ranker.encoder is None
    assert loaded.model_error is not None and "no-such-model" in loaded.model_error


async def test_a_given_embedder_is_used_and_warmed_up(tmp_path):
    embedder = HashEmbedder()
    loaded = await load_ranker(Settings(data_dir=tmp_path), fixed_embedder(embedder))
    assert loaded.ranker.embedder is embedder and loaded.model_error is None
    assert embedder.calls == 1  # the warm-up: the first utterance does not pay for it
    loaded.ranker.batcher.close()


async def test_the_encode_deadline_comes_from_the_settings_and_zero_means_never_shed(tmp_path, monkeypatch):
    monkeypatch.setenv("TRENDLENS_ENCODE_DEADLINE_MS", "80")
    loaded = await load_ranker(Settings(data_dir=tmp_path), fixed_embedder(HashEmbedder()))
    assert loaded.ranker.encoder.deadline_s == 0.08
    loaded.ranker.batcher.close()
    loaded = await load_ranker(Settings(data_dir=tmp_path, encode_deadline_ms=0), fixed_embedder(HashEmbedder()))
    assert loaded.ranker.encoder.deadline_s is None
    loaded.ranker.batcher.close()


def test_one_blas_thread_where_the_model_runs_elsewhere_unless_told(tmp_path):
    from agent.index.model_loading import blas_threads_for
    from agent.ranking import HashEmbedder
    from agent.ranking.remote import OpenAIEmbedder

    settings = Settings(data_dir=tmp_path)
    remote = OpenAIEmbedder.__new__(OpenAIEmbedder)  # only its kind matters here
    assert blas_threads_for(settings, remote) == 1
    assert blas_threads_for(settings, None) == 1  # lexical ranking only
    assert blas_threads_for(settings, HashEmbedder()) is None  # a model in process: the library's default
    assert blas_threads_for(Settings(data_dir=tmp_path, blas_threads=2), remote) == 2


async def test_loading_a_ranker_without_a_model_limits_blas_to_one_thread(tmp_path):
    from threadpoolctl import threadpool_info, threadpool_limits

    from agent.index.model_loading import load_ranker

    with threadpool_limits(limits=None):  # whatever load_ranker sets is undone after the test
        await load_ranker(Settings(data_dir=tmp_path, embedder="lexical"), fixed_embedder(None))
        blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
        assert blas and set(blas) == {1}
