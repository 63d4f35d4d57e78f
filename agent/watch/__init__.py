"""Watch lists: groups of words a story must (and must not) carry, alerted once per story when a
fetch cycle first sees it (TrendRadar's `frequency_words.txt`, kept where it fits)."""

from __future__ import annotations

from .lists import Alert, WatchLists
from .matching import group_matches
from .rules import Term, WatchGroup, parse_watch
from .watcher import Watcher

__all__ = ["Alert", "Term", "WatchGroup", "WatchLists", "Watcher", "group_matches", "parse_watch"]
