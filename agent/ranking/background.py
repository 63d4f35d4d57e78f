"""Per-topic backgrounds: how close each topic sits to everyday talk, measured once at index time.

A short colloquial title ("当家里有了女主人") sits close to everything people say at a
table; a long formal question sits far from it. So a cosine of 0.86 means "nothing" for
the first and "a match" for the second. Dividing by the spread of one query's cosines
over the whole index (the old evidence) made that depend on what else the index held:
English titles beside Chinese ones widened the spread and hid a Chinese line's best
match, a Chinese-only index made every best match look significant.

Instead each topic carries, per query language, the mean and spread of its cosine to a
fixed sample of everyday talk in that language (`background/<lang>.txt`, provenance in
`background/PROVENANCE.md`), and the dense evidence of a query is its cosine in that
topic's own units. Nothing else in the index moves it.

The sample is encoded once per model (query role, as speech is) and kept in the
embedding cache; a topic's background costs one row of cosines when it is first indexed.
For the default model the vectors ship beside the text (`<lang>-<key>.npy`, written by
`scripts/tools/build_background.py --vectors`), so a fresh install does not spend its first
index encoding them; the key names the model and the exact lines, so an edited sample or
another model is encoded instead.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Mapping
from functools import cache
from importlib import resources
from types import MappingProxyType

import numpy as np

from .cache import EmbeddingCache
from .embedders import Embedder

__all__ = ["LANGS", "Background", "sample", "sample_vectors", "shipped_name", "topic_backgrounds"]

#: Query languages with a background sample; a query in any other language reads "en".
LANGS = ("zh", "en")
MIN_STD = 1e-3
CHUNK = 4096  # topics measured at once  # a topic whose cosines to the sample barely move still gets a finite scale

#: Per language: (mean, std) arrays, row-aligned with the snapshot's topics.
Background = Mapping[str, tuple[np.ndarray, np.ndarray]]

_lock = threading.Lock()
_vectors: dict[str, Mapping[str, np.ndarray]] = {}


@cache
def sample(lang: str) -> tuple[str, ...]:
    """The shipped everyday-talk lines of `lang` (one per line)."""
    text = resources.files("agent").joinpath("ranking", "background", f"{lang}.txt").read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def shipped_name(model: str, lang: str) -> str:
    """The file name of `lang`'s sample vectors for `model`, keyed by the model and the lines."""
    key = hashlib.blake2s("\n".join((model, *sample(lang))).encode("utf-8"), digest_size=6).hexdigest()
    return f"{lang}-{key}.npy"


def _shipped(model: str, lang: str, dim: int) -> np.ndarray | None:
    ref = resources.files("agent").joinpath("ranking", "background", shipped_name(model, lang))
    if not ref.is_file():
        return None
    mat = np.load(io.BytesIO(ref.read_bytes()), allow_pickle=False).astype(np.float32)
    return mat if mat.shape == (len(sample(lang)), dim) else None


def sample_vectors(embedder: Embedder, cache: EmbeddingCache | None = None) -> Mapping[str, np.ndarray]:
    """Query-role vectors of every language's sample, encoded once per model (and cached on disk)."""
    with _lock:
        found = _vectors.get(embedder.name)
        if found is not None:
            return found
        out = {}
        for lang in LANGS:
            texts = list(sample(lang))
            shipped = _shipped(embedder.name, lang, embedder.dim)
            if shipped is not None:
                shipped.setflags(write=False)
                out[lang] = shipped
                continue
            name = f"{embedder.name}#query"  # the key the query encoder caches speech under
            if cache is not None:
                mat, hit = cache.get_many(name, texts, embedder.dim)
            else:
                mat, hit = np.zeros((len(texts), embedder.dim), dtype=np.float32), np.zeros(len(texts), dtype=bool)
            missing = np.flatnonzero(~hit)
            if len(missing):
                vecs = np.asarray(embedder.encode([texts[i] for i in missing], role="query"), dtype=np.float32)
                mat[missing] = vecs
                if cache is not None:
                    cache.put_many(name, [texts[i] for i in missing], vecs)
            mat = np.ascontiguousarray(mat, dtype=np.float32)
            mat.setflags(write=False)
            out[lang] = mat
        frozen = MappingProxyType(out)
        _vectors[embedder.name] = frozen
        return frozen


def topic_backgrounds(matrix: np.ndarray,
                      vectors: Mapping[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per language, each row's (mean, std) of cosine against that language's sample."""
    out = {}
    for lang, sample_mat in vectors.items():
        mean = np.empty(len(matrix), dtype=np.float32)
        std = np.empty(len(matrix), dtype=np.float32)
        for start in range(0, len(matrix), CHUNK):  # bounded memory for a 100k-topic first index
            cos = matrix[start : start + CHUNK] @ sample_mat.T  # (chunk, sample size)
            mean[start : start + CHUNK] = cos.mean(axis=1)
            std[start : start + CHUNK] = np.maximum(cos.std(axis=1), MIN_STD)
        out[lang] = (mean, std)
    return out
