"""What the tests and the scripts share, kept out of the wheel: `make` puts the checkout on the
virtual environment's path (`.venv/.../trendlens-harness.pth`), so a script imports it as a test does.

The two every bench uses are here: one percentile (`pct`), one free port. The rest is imported by
module: `apps` (the app with a known key), `servers` (real PostgreSQL, Redis, nginx, `serve`),
`realdata` (two recorded days of real lists), `devsets` and `recall` (the real dev sets and their
figures), `story_days`, `fitting` (what the fitting scripts fit with), `asr`, `homophones`,
`intent_table`, `paths`.
"""

from agent.commands.ports import free_port
from harness.stats import pct

__all__ = ["free_port", "pct"]
