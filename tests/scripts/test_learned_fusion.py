"""The learned-fusion measurement reads the candidates the shipped ranker gives.

scripts/eval/learned_fusion.py builds its features itself (it needs BM25 and both dense z-scores for all
twenty candidates), so these check that its candidates, their order, labels and gate flags are
the ones `Ranker.rank` returns, on the synthetic regression set (fixtures/relevance, written by us)
with the test embedder.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agent.commands.rank import load_topics
from agent.ranking import HashEmbedder, Ranker, RankQuery
from tests.conftest import ROOT, load_script

fusion = load_script("eval", "learned_fusion")
FEATURES, features = fusion.FEATURES, fusion.features

SETS = ROOT / "fixtures" / "relevance"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_candidates_are_the_rankers_top_in_its_order(lang: str) -> None:
    ranker = Ranker(HashEmbedder(), load_topics(SETS / lang / "topics.json"))
    queries = [json.loads(x) for x in (SETS / lang / "queries.jsonl").read_text(encoding="utf-8").splitlines() if x]
    queries = [q for q in queries if q.get("relevant")][:12]
    texts, relevant = [q["text"] for q in queries], [set(q["relevant"]) for q in queries]
    x, label, gated, groups = features(ranker, texts, relevant, lang, {}, top=5)
    assert groups == [5] * len(texts) and label.any()
    at = 0
    for text, rel in zip(texts, relevant, strict=True):
        ranked = ranker.rank_sync(RankQuery(text=text, top_k=5, prior=False, mmr=False))
        every = RankQuery(text=text, top_k=len(ranker), gate=True, prior=False, mmr=False)
        passed = {r.id for r in ranker.rank_sync(every)}
        rows = slice(at, at + 5)
        np.testing.assert_allclose(x[rows, FEATURES.index("relevance")],
                                   [r.components["relevance"] for r in ranked], rtol=1e-5, atol=1e-6)
        assert list(x[rows, FEATURES.index("position")]) == list(range(5))
        assert list(label[rows]) == [float(r.id in rel) for r in ranked]
        assert list(gated[rows]) == [r.id in passed for r in ranked]
        at += 5
