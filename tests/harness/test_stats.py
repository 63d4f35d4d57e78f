"""The one percentile the benchmarks report."""

from __future__ import annotations

import math

from harness import pct


def test_a_percentile_is_an_observed_sample_that_leans_high() -> None:
    latencies = [float(ms) for ms in range(1, 101)]  # 1 … 100 ms
    assert pct(latencies, 0.5) == 51.0
    assert pct(latencies, 0.95) == 96.0
    assert pct(latencies, 0.99) == 100.0
    assert pct(latencies, 1.0) == 100.0
    assert pct([3.0, 1.0, 2.0], 0.5) == 2.0  # order of arrival does not matter


def test_no_samples_have_no_percentile() -> None:
    assert math.isnan(pct([], 0.95))
