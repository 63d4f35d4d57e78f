"""The one percentile every benchmark reports, so two benches' p95s are comparable."""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["pct"]


def pct(values: Iterable[float], q: float) -> float:
    """The `q` quantile (0 ≤ q ≤ 1) of `values`: the sorted sample at 0-based index ⌊q·n⌋, the last
    one when that runs past the end; NaN for no samples.

    Always an observed value, never interpolated, so a latency figure is one a request really took.
    For n = 100 the p95 is the 96th smallest and the p99 the 100th: it leans high, never low.
    """
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
