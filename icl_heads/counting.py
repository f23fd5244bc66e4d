"""Counting rules shared by the science modules and the cost model, kept free of torch so that
the cost model (run at DAG build, icl_heads/cost.py) uses the very same functions as the rules:
how many heads "the top k%" is, how FV scoring groups layers into batches, which layers an
add-back / steering sweep injects at, and how an evaluation with per-condition query limits
splits its prompts."""
from __future__ import annotations

import math


def n_of_percent(n_heads: int, percent: float) -> int:
    """The one rounding rule for "the top k% of heads", everywhere in the project: the smallest
    whole number of heads that is at least k% of them (ceil), and at least one. E.g. 2% of
    270 heads (SmolLM2) = 5.4 -> 6; 2% of 72 heads (Gemma 3 270M) = 1.44 -> 2."""
    return max(1, int(math.ceil(n_heads * percent / 100.0 - 1e-9)))


def layer_groups(n_layers: int, n_heads: int, chunk: int) -> list[tuple[int, int]]:
    """Consecutive layer ranges [a, b) of near-equal size holding at most `chunk` heads each (at
    least one layer): the rows of one final-step batch of FV scoring (icl_heads.fv)."""
    per = max(1, chunk // n_heads)
    n = -(-n_layers // per)
    per = -(-n_layers // n)
    return [(a, min(a + per, n_layers)) for a in range(0, n_layers, per)]


def sweep_layers(n_layers: int, fractions) -> list[int]:
    """The injection layers of the add-back / steering sweeps: round(f x L) for each depth fraction
    f, clipped to [0, L - 1], without repeats."""
    return sorted({min(n_layers - 1, max(0, int(round(f * n_layers)))) for f in fractions})


def limit_ranges(n, keys, limits: dict) -> list[tuple]:
    """The ranges of one evaluation call whose conditions `keys` may each run on the first
    limits[key] of n prompts only (a key without a limit, or with None, runs on all n): the
    prompts are cut at every limit into consecutive ranges [a, b), and each range runs once with
    the keys that reach it. [(a, b, [keys])], ranges that no key reaches left out
    (icl_heads.model.evaluate, and the cost model's count of it)."""
    lim = {k: n if limits.get(k) is None else min(n, limits[k]) for k in keys}
    cuts = sorted({0, n, *lim.values()})
    out = []
    for a, b in zip(cuts, cuts[1:]):
        active = [k for k in keys if lim[k] > a]
        if active:
            out.append((a, b, active))
    return out
