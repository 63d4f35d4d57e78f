"""The service starts without its model: ranking falls back to lexical, and says why."""

from __future__ import annotations

from agent.model_loading import load_ranker
from agent.ranking import HashEmbedder
from agent.settings import Settings


async def test_a_model_that_cannot_load_leaves_a_lexical_ranker_and_the_reason(tmp_path):
    settings = Settings(data_dir=tmp_path, device="cpu", embedder=f"st:{tmp_path / 'no-such-model'}")
    loaded = await load_ranker(settings)
    assert loaded.ranker.embedder is None and loaded.ranker.encoder is None
    assert loaded.model_error is not None and "no-such-model" in loaded.model_error


async def test_a_given_embedder_is_used_and_warmed_up(tmp_path):
    embedder = HashEmbedder()
    loaded = await load_ranker(Settings(data_dir=tmp_path), embedder)
    assert loaded.ranker.embedder is embedder and loaded.model_error is None
    assert embedder.calls == 1  # the warm-up: the first utterance does not pay for it
    loaded.ranker.batcher.close()
