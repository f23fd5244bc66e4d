"""Confidence intervals and tests shared by the analyses."""
from __future__ import annotations

import numpy as np


def bootstrap_ci(values, n_boot: int = 1000, level: float = 0.95, seed: int = 0, stat=np.mean) -> tuple[float, float]:
    """Percentile bootstrap CI of `stat` over the observations (e.g. queries)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, v.size, size=(n_boot, v.size))
    boots = stat(v[idx], axis=1)
    a = (1 - level) / 2
    return float(np.quantile(boots, a)), float(np.quantile(boots, 1 - a))
