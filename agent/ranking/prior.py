"""The heat/freshness prior: a small nudge toward hot, rising and new topics.

`heat_signal` turns raw heat into [0, 1] (today: the percentile of log-heat in the index;
a per-platform normalised heat can replace it in one line), and `prior` mixes it with
rising velocity and newness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .snapshot import RankerEntry

__all__ = ["heat_signal", "prior", "topic_priors"]


def heat_signal(heat: np.ndarray) -> np.ndarray:
    """Raw heat (0 = unknown) to [0, 1]: its percentile among the topics that have one."""
    out = np.zeros(heat.shape[0])
    has = heat > 0
    if has.any():
        order = np.argsort(np.log1p(heat[has]), kind="stable")
        ranks = np.empty(order.size)
        ranks[order] = np.arange(order.size)
        out[has] = (ranks + 1) / order.size
    return out


def prior(heat: np.ndarray, rising: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Mix of heat in [0, 1], rising in [0, 1) and newness in {0, 1}: at most 1."""
    return 0.5 * heat + 0.3 * rising + 0.2 * new


def topic_priors(entries: Sequence[RankerEntry]) -> np.ndarray:
    if not entries:
        return np.zeros(0, dtype=np.float32)
    heat = np.array([e.prior.heat if e.prior.heat is not None and e.prior.heat > 0 else 0.0 for e in entries],
                    dtype=np.float64)
    vel = np.array([e.prior.velocity or 0.0 for e in entries], dtype=np.float64)
    pos = vel[vel > 0]
    scale = float(np.median(pos)) if pos.size else 1.0
    rising = np.where(vel > 0, np.tanh(vel / max(scale, 1e-9)), 0.0)
    new = np.array([1.0 if e.prior.is_new else 0.0 for e in entries])
    return prior(heat_signal(heat), rising, new).astype(np.float32)
