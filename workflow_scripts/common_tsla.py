"""Helpers shared by the TSLA intervention scripts (T5, T6, T7)."""
from __future__ import annotations



def metric_rows(base: dict, res, label: str = "accuracy") -> list[dict]:
    from icl_heads.stats import bootstrap_ci

    rows = []
    for metric, v in (("accuracy", res.correct), ("tr_ratio", res.in_set)):
        lo, hi = bootstrap_ci(v.numpy(), seed=0)
        rows.append({**base, "metric": metric, "value": float(v.mean()), "ci_low": lo, "ci_high": hi, "n": len(v)})
    return rows
