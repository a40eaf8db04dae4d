"""95% bootstrap intervals of per-query metrics, alone and as paired differences between two
systems over the same queries (a rule is kept only when it wins outside the interval)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

RESAMPLES = 2000
SEED = 20261203


def reciprocal_rank(rank: int | None, depth: int = 10) -> float:
    """MRR@depth's term for a query whose first hit is at `rank` (None: no hit)."""
    return 1.0 / rank if rank is not None and rank <= depth else 0.0


def found_within(k: int) -> Callable[[int | None], float]:
    """Recall@k's term: 1 when the first hit is within the top k."""
    return lambda rank: float(rank is not None and rank <= k)


def interval(values: Sequence[float], resamples: int = RESAMPLES) -> tuple[float, float, float]:
    """The mean of the values and its 95% percentile-bootstrap interval."""
    v = np.asarray(values, dtype=np.float64)
    if len(v) == 0:
        return 0.0, 0.0, 0.0
    rng = np.random.default_rng(SEED)
    means = v[rng.integers(0, len(v), size=(resamples, len(v)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(v.mean()), float(low), float(high)


def paired(
    a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES
) -> tuple[float, float, float]:
    """The mean of `a - b` over the same queries and its 95% bootstrap interval: a difference
    whose interval excludes 0 is one that noise does not explain."""
    return interval(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64), resamples)


def fmt(mean: float, low: float, high: float) -> str:
    """`0.812 [0.761, 0.858]`."""
    return f"{mean:.3f} [{low:.3f}, {high:.3f}]"


def fmt_delta(mean: float, low: float, high: float) -> str:
    """`+0.031 [+0.004, +0.060]*`, the star when the interval excludes 0."""
    star = "*" if low > 0 or high < 0 else ""
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]{star}"
