"""The CUDA path on a machine with a GPU: load the bundled MiniLM through TrendLens on cuda, embed, time it.

    .venv/bin/python scripts/tools/gpu_check.py [--texts 2048] [--batch 64]

Prints one JSON line (device name, load seconds, lines/s on cuda and, for comparison, on cpu). Without a
CUDA build of torch or a visible GPU it exits 2 with one line saying which. Not yet run on a GPU: the
machines this project is measured on have none (see BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from harness import devsets


def _lines(n: int) -> list[str]:
    """Real mention texts of the relevance dev set, cycled to n (each made distinct)."""
    rel, _chat = devsets.load()
    texts = [q["text"] for lang in ("zh", "en") for q in rel[lang]["queries"]]
    return [f"{texts[i % len(texts)]} ({i})" for i in range(n)]


def _rate(embedder, texts: list[str], batch: int) -> float:
    embedder.encode(texts[:batch])  # warm up: kernels, allocator
    started = time.perf_counter()
    for i in range(0, len(texts), batch):
        embedder.encode(texts[i:i + batch], role="passage")
    return len(texts) / (time.perf_counter() - started)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        why = "torch is a CPU build" if torch.version.cuda is None else "no CUDA GPU is visible to torch"
        print(f"gpu_check: {why} (torch {torch.__version__}); nothing measured", file=sys.stderr)
        return 2
    from agent.ranking import SentenceTransformerEmbedder

    texts = _lines(args.texts)
    started = time.perf_counter()
    gpu = SentenceTransformerEmbedder("minilm", device="cuda", batch_size=args.batch)
    load_s = time.perf_counter() - started
    gpu_rate = _rate(gpu, texts, args.batch)
    cpu_rate = _rate(SentenceTransformerEmbedder("minilm", device="cpu", batch_size=args.batch),
                     texts[: min(len(texts), 512)], args.batch)
    print(json.dumps({"device": gpu.device, "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                      "model": gpu.model_ref, "texts": len(texts), "batch": args.batch,
                      "load_s": round(load_s, 2), "cuda_lines_per_s": round(gpu_rate, 1),
                      "cpu_lines_per_s": round(cpu_rate, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
