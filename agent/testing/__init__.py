"""What the tests and the benchmark scripts share, shipped with the package so a script imports it
without putting `tests` on its path: one percentile, one free port."""

from ..commands.ports import free_port
from .stats import pct

__all__ = ["free_port", "pct"]
