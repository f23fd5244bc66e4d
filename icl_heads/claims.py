"""Rows of the claims table (S2): a paper's claim in one sentence, the value measured
on this model with a 95% bootstrap CI over queries, and whether the claim holds."""
from __future__ import annotations

import math

COLUMNS = ["paper", "artifact", "claim", "model", "dataset", "metric", "value", "ci_low", "ci_high",
           "paper_value", "holds", "rule", "n", "seed"]


def verdict(ci_low: float, ci_high: float, direction: str) -> str:
    """'yes' when the whole CI lies strictly on the claimed side of 0; 'no' when none of it
    does (a CI of exactly [0, 0] is a clear absence of the claimed effect); 'unclear' when
    it straddles 0. direction: 'positive' or 'negative'."""
    if any(map(math.isnan, (ci_low, ci_high))):
        return "unclear"
    if direction == "positive":
        return "yes" if ci_low > 0 else ("no" if ci_high <= 0 else "unclear")
    return "yes" if ci_high < 0 else ("no" if ci_low >= 0 else "unclear")


def row(*, artifact, claim, model, dataset, metric, value, ci, direction, paper_value="", n, seed=None,
        paper="TSLA", rule="") -> dict:
    lo, hi = ci
    return {"paper": paper, "artifact": artifact, "claim": claim, "model": model, "dataset": dataset,
            "metric": metric, "value": value, "ci_low": lo, "ci_high": hi, "paper_value": paper_value,
            "holds": verdict(lo, hi, direction), "rule": rule, "n": n, "seed": seed}
