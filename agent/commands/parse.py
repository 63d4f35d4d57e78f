"""`trendlens parse SOURCE FILE`: run a source's own parser on a recorded body, no network."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InputError, SourceError
from ..settings import get_settings
from ..sources import source_class


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("parse", help="parse a recorded response body with a source's parser (no network)")
    p.add_argument("source", help="source name, e.g. weibo")
    p.add_argument("file", type=Path, help="recorded response body")
    p.add_argument("--json", action="store_true", help="print a JSON array of topics")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    source = source_class(args.source).from_settings(get_settings())
    try:
        body = args.file.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {str(args.file)!r}: {exc.strerror}") from None
    try:
        topics = source.parse_body(body, url=None)
    except SourceError as exc:
        print(f"trendlens parse: {exc} [{exc.kind}] in {str(args.file)!r}", file=sys.stderr)
        return 1
    if args.json:
        json.dump([t.public() for t in topics], sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{source.title} — {len(topics)} topics from {args.file.name}")
    for col in ("rank", "title", "heat", "url"):
        table.add_column(col, overflow="fold")
    for t in topics:
        heat = t.heat_text or ("" if t.heat is None else f"{t.heat:g}")
        table.add_row(str(t.rank or ""), t.title, heat, t.url or "")
    Console().print(table)
    return 0
