"""Logging for the command line: our lines at INFO, library chatter below it.

At INFO the log should say what the service does (sources fetched, captions
shown), not how APScheduler registers and runs its jobs: those lines are
demoted to DEBUG, where `-v` shows them again.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["SchedulerChatter", "configure_logging"]


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
