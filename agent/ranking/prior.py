"""The heat/freshness prior: a small nudge toward hot, rising and new topics.

The heat part is each platform's heat read against its own list (`heat.normalised_heat`),
never one raw scale across platforms; `prior` mixes it with rising velocity and newness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .fair_heat import HeatRow, normalised_heat
from .pacing import paced, step_aside

__all__ = ["PriorEntry", "fair_heat", "prior", "row_priors"]


def prior(heat: np.ndarray, rising: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Mix of heat in [0, 1], rising in [0, 1) and newness in {0, 1}: at most 1."""
    return 0.5 * heat + 0.3 * rising + 0.2 * new


class PriorEntry(Protocol):
    """What the prior reads of an index entry (`snapshot.RankerEntry`): its topic and heat history."""

    @property
    def topic(self) -> Any: ...

    @property
    def prior(self) -> Any: ...


def fair_heat(entries: Sequence[PriorEntry]) -> np.ndarray:
    """Each entry's heat read against its own platform's list (agent/ranking/fair_heat.py), not one raw
    scale. Pass every entry of the platforms concerned: a platform's list is read as a whole."""
    rows = []
    for e in entries:
        step_aside()  # every row of the platforms concerned: a build's loop (pacing.py)
        rows.append(HeatRow(e.topic.id, e.topic.source, e.prior.heat, e.topic.rank))
    fair = normalised_heat(rows)
    return np.fromiter((fair[row.id] for row in paced(rows, 256)), dtype=np.float64, count=len(rows))


def row_priors(heat: np.ndarray, velocity: np.ndarray, is_new: np.ndarray) -> np.ndarray:
    """The prior of each row from its fair heat, velocity (heat per hour) and newness (0 or 1)."""
    if not len(heat):
        return np.zeros(0, dtype=np.float32)
    pos = velocity[velocity > 0]
    scale = float(np.median(pos)) if pos.size else 1.0
    rising = np.where(velocity > 0, np.tanh(velocity / max(scale, 1e-9)), 0.0)
    return prior(heat, rising, is_new).astype(np.float32)
