"""`trendlens` command line. Each subcommand lives in `agent/commands/<name>.py`
and registers itself through `register(subparsers)`; COMMANDS lists them all."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from .commands import COMMANDS
from .errors import ConfigError, TrendLensError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trendlens",
        description="热梗透视镜 TrendLens — what the table is talking about, on your glasses.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # one line per request is noise at INFO; our own fetch log already says what happened
    logging.getLogger("httpx").setLevel(logging.DEBUG if args.verbose else logging.WARNING)
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        print(f"trendlens: error: {exc}", file=sys.stderr)
        return 2
    except TrendLensError as exc:
        print(f"trendlens: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
