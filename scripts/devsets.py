"""Shared loading for the real development sets in ../shared/devsets (read in place, never copied).

Query and line vectors are cached in the persistent embedding cache under `<model>#query`,
so a second run of any evaluation costs no model time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.commands.rank import load_topics  # noqa: E402
from agent.ranking import Embedder, EmbeddingCache, RankerEntry  # noqa: E402

DEVSETS = ROOT.parent / "shared" / "devsets"


def load(devsets: Path = DEVSETS) -> tuple[dict[str, Any], dict[str, list[str]]]:
    rel = json.loads((devsets / "relevance.json").read_text(encoding="utf-8"))
    chat = json.loads((devsets / "chitchat.json").read_text(encoding="utf-8"))
    return rel, chat


def entries(topics: list[dict], tmp: Path) -> list[RankerEntry]:
    """Topics through the CLI's own loader (only id, title, source), as `trendlens rank` sees them."""
    path = tmp / "topics.json"
    path.write_text(json.dumps([{k: t[k] for k in ("id", "title", "source")} for t in topics], ensure_ascii=False),
                    encoding="utf-8")
    return load_topics(path)


def split(n: int, part: str) -> list[int]:
    """Deterministic halves: "tune" = even positions, "report" = odd ones, "all" = every item."""
    if part == "all":
        return list(range(n))
    return [i for i in range(n) if i % 2 == (0 if part == "tune" else 1)]


def vectors(embedder: Embedder, cache: EmbeddingCache | None, texts: list[str], role: str = "query") -> np.ndarray:
    name = f"{embedder.name}#{role}" if role == "query" else embedder.name
    if cache is not None:
        mat, found = cache.get_many(name, texts, embedder.dim)
    else:
        mat, found = np.zeros((len(texts), embedder.dim), dtype=np.float32), np.zeros(len(texts), dtype=bool)
    missing = [i for i in range(len(texts)) if not found[i]]
    for s in range(0, len(missing), 64):
        chunk = missing[s : s + 64]
        vecs = embedder.encode([texts[i] for i in chunk], role=role)  # type: ignore[arg-type]
        mat[chunk] = vecs
        if cache is not None:
            cache.put_many(name, [texts[i] for i in chunk], vecs)
        print(f"  encoded {s + len(chunk)}/{len(missing)} ({role})", file=sys.stderr, flush=True)
    return mat
