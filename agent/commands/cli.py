"""`trendlens` command line. Each subcommand lives in `agent/commands/<name>.py`
and registers itself through `register(subparsers)`; COMMANDS lists them all."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from agent.commands import COMMANDS
from agent.errors import ConfigError, TrendLensError
from agent.logs import configure_logging
from agent.settings import setting_error

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
    configure_logging(args.verbose)
    # Every failure is one line on stderr; -v adds the traceback for the unexpected ones.
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        print(f"trendlens: error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:  # a TRENDLENS_* variable or config file value of the wrong type
        print(f"trendlens: error: {setting_error(exc)}", file=sys.stderr)
        return 2
    except TrendLensError as exc:
        print(f"trendlens: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        print(f"trendlens: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        if args.verbose:
            logging.getLogger("trendlens").exception("unexpected error")
        print(f"trendlens: unexpected error: {type(exc).__name__}: {exc} (run with -v for the traceback)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
