"""Confidence intervals and tests shared by the analyses: bootstrap intervals (paired, two-sample,
percentile of given samples), two one-sided tests of equivalence with the sample size they would
need, and the hypergeometric test of the overlap of two head sets."""
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


def two_sample_bootstrap(a, b, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """mean(a) - mean(b) of two independent samples and its percentile bootstrap CI (each
    sample resampled on its own)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.size == 0 or b.size == 0:
        return float("nan"), float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    boots = (a[rng.integers(0, a.size, size=(n_boot, a.size))].mean(1)
             - b[rng.integers(0, b.size, size=(n_boot, b.size))].mean(1))
    q = (1 - level) / 2
    return float(a.mean() - b.mean()), float(np.quantile(boots, q)), float(np.quantile(boots, 1 - q))


def percentile_interval(samples, level: float = 0.95, centre: float | None = None) -> tuple[float, float]:
    """Percentile interval of bootstrap samples (nan samples ignored). With `centre` (the point
    estimate), shifted by centre - median: for statistics whose bootstrap distribution is biased."""
    s = np.asarray(samples, dtype=float)
    if not np.isfinite(s).any():
        return float("nan"), float("nan")
    q = (1 - level) / 2
    lo, hi = float(np.nanquantile(s, q)), float(np.nanquantile(s, 1 - q))
    if centre is not None:
        shift = centre - float(np.nanmedian(s))
        lo, hi = lo + shift, hi + shift
    return lo, hi


def tost(values, margin: float, alpha: float = 0.05) -> dict:
    """Two one-sided t-tests (TOST) of |mean(values)| < margin, values one per observation (e.g.
    the per-query difference between two conditions), df = n - 1:
        p_low  = P(T >= (d + margin) / se)    H0: mean <= -margin
        p_high = P(T <= (d - margin) / se)    H0: mean >= +margin
    p = max(p_low, p_high); equivalence at level alpha iff p < alpha, which is the same as the
    (1 - 2 alpha) CI d +- t_{1-alpha, n-1} se lying inside (-margin, margin).
    Returns n, estimate d, sd (ddof 1), se, ci (the 1 - 2 alpha interval), p_low, p_high, p."""
    from scipy.stats import t as student

    v = np.asarray(values, dtype=float)
    n = int(v.size)
    out = {"n": n, "estimate": float(v.mean()) if n else float("nan"), "sd": float("nan"), "se": float("nan"),
           "ci": (float("nan"), float("nan")), "p_low": float("nan"), "p_high": float("nan"), "p": float("nan")}
    if n < 2:
        return out
    d, sd = float(v.mean()), float(v.std(ddof=1))
    se = sd / np.sqrt(n)
    out.update(sd=sd, se=se)
    if se == 0:
        inside = abs(d) < margin
        out.update(ci=(d, d), p_low=0.0 if inside else 1.0, p_high=0.0 if inside else 1.0, p=0.0 if inside else 1.0)
        return out
    tc = float(student.ppf(1 - alpha, n - 1))
    p_low = float(student.sf((d + margin) / se, n - 1))
    p_high = float(student.cdf((d - margin) / se, n - 1))
    out.update(ci=(d - tc * se, d + tc * se), p_low=p_low, p_high=p_high, p=max(p_low, p_high))
    return out


def n_for_equivalence(sd: float, estimate: float, margin: float, alpha: float = 0.05) -> float:
    """Sample size at which the (1 - 2 alpha) CI of a mean would fit inside (-margin, margin),
    given the observed sd and estimate d (normal approximation):
        N = ceil( (z_{1-alpha} * sd / (margin - |d|))^2 ).
    inf where |d| >= margin (more data would not be expected to show equivalence)."""
    from scipy.stats import norm

    room = margin - abs(estimate)
    if not np.isfinite(sd) or room <= 0:
        return float("inf")
    return float(max(2, int(np.ceil((norm.ppf(1 - alpha) * sd / room) ** 2))))


def n_for_nonequivalence(sd: float, estimate: float, margin: float, alpha: float = 0.05) -> float:
    """Sample size at which the (1 - 2 alpha) CI of a mean would lie wholly outside (-margin,
    margin), given the observed sd and estimate d (normal approximation):
        N = ceil( (z_{1-alpha} * sd / (|d| - margin))^2 ).
    inf where |d| <= margin (more data would not be expected to show a change of the margin)."""
    from scipy.stats import norm

    room = abs(estimate) - margin
    if not np.isfinite(sd) or room <= 0:
        return float("inf")
    return float(max(2, int(np.ceil((norm.ppf(1 - alpha) * sd / room) ** 2))))


def n_for_effect(sd: float, estimate: float, level: float = 0.95) -> float:
    """Sample size at which the two-sided `level` CI of a mean, estimate d and sd as observed,
    would exclude 0 (normal approximation): N = ceil( (z_{(1+level)/2} * sd / |d|)^2 ); inf at d = 0."""
    from scipy.stats import norm

    if not np.isfinite(sd) or not np.isfinite(estimate) or estimate == 0:
        return float("inf")
    return float(max(2, int(np.ceil((norm.ppf((1 + level) / 2) * sd / abs(estimate)) ** 2))))


def overlap_test(overlap: int, size_a: int, size_b: int, n: int) -> tuple[float, float]:
    """Overlap of two head sets against two independent uniformly random sets of the same sizes
    among n heads: the number shared is hypergeometric(n, size_a, size_b), with mean
    size_a * size_b / n. Returns (that mean, P(shared >= overlap))."""
    from scipy.stats import hypergeom

    if n <= 0 or size_a <= 0 or size_b <= 0:
        return 0.0, float("nan")
    return size_a * size_b / n, float(hypergeom.sf(overlap - 1, n, size_a, size_b))
