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


def paired_bootstrap(values_by_name: dict, fn, n_boot: int = 1000, level: float = 0.95, seed: int = 0):
    """CI of fn({name: mean of resampled values}) where every array is indexed by the same
    queries (a paired bootstrap: one resample of query indices serves every array)."""
    arrays = {k: np.asarray(v, dtype=float) for k, v in values_by_name.items()}
    n = len(next(iter(arrays.values())))
    point = fn({k: v.mean() for k, v in arrays.items()})
    rng = np.random.default_rng(seed)
    boots = np.empty(n_boot)
    for i in range(n_boot):
        idx = rng.integers(0, n, size=n)
        boots[i] = fn({k: v[idx].mean() for k, v in arrays.items()})
    a = (1 - level) / 2
    return float(point), float(np.quantile(boots, a)), float(np.quantile(boots, 1 - a))
