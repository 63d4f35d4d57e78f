"""What the tests and the scripts share, shipped with the package so a script imports it without
putting `tests` on its path.

The two every bench uses are here: one percentile (`pct`), one free port. The rest is imported by
module: `apps` (the app with a known key), `servers` (real PostgreSQL, Redis, nginx, `serve`),
`realdata` (two recorded days of real lists), `devsets` and `recall` (the real dev sets and their
figures), `story_days`, `asr`, `homophones`, `intent_table`, `paths`.
"""

from ..commands.ports import free_port
from .stats import pct

__all__ = ["free_port", "pct"]
