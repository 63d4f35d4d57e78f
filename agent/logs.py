"""Logging for the command line: our lines at INFO, library chatter below it.

At INFO the log should say what the service does (sources fetched, captions
shown), not how APScheduler registers and runs its jobs: those lines are
demoted to DEBUG, where `-v` shows them again.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["LOG_FIELD_CHARS", "SchedulerChatter", "configure_logging", "log_field"]

LOG_FIELD_CHARS = 120  # a session id or a URL fits; a flood does not


def log_field(value: object, limit: int = LOG_FIELD_CHARS) -> str:
    """A value a client chose (a session id, a URL, an upstream's message), safe in one log line.

    Every character that is not printable (newlines, carriage returns, escapes, bidi overrides)
    is written as its Python escape, so a client cannot start a forged line or repaint a
    terminal, and the text is cut to `limit` characters, with how many were left out."""
    text = value if isinstance(value, str) else str(value)
    kept = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text[:limit])
    return kept if len(text) <= limit else f"{kept}…(+{len(text) - limit} chars)"


class SchedulerChatter(logging.Filter):
    """Demotes APScheduler's per-job INFO lines (added, running, executed) to DEBUG."""

    PREFIXES = ("Added job", "Adding job tentatively", "Running job", "Removed job")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        message = record.getMessage()
        if not (message.startswith(self.PREFIXES) or message.endswith("executed successfully")):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def configure_logging(verbose: bool = False) -> None:
    """Root logging to stderr; quieter third-party loggers unless `verbose`."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # one line per request is noise at INFO; our own fetch log already says what happened
    logging.getLogger("httpx").setLevel(logging.DEBUG if verbose else logging.WARNING)
    # the MCP SDK logs every request it handles ("Processing request of type …", "Terminating session")
    logging.getLogger("mcp").setLevel(logging.DEBUG if verbose else logging.WARNING)
    chatter = SchedulerChatter()
    for name in ("apscheduler.scheduler", "apscheduler.executors.default"):
        target = logging.getLogger(name)
        if not any(isinstance(f, SchedulerChatter) for f in target.filters):
            target.addFilter(chatter)
