"""Paper A (TSLA) analyses on cached activations."""
from __future__ import annotations

import pandas as pd
import torch

from .scores import jaccard, rank_correlations, top_set, tsla_head_scores

SCORE_COLUMNS = {"tr": "TR", "tl": "TL", "induction": "IH"}


def head_scores_table(cache: dict, induction: pd.DataFrame | None = None) -> pd.DataFrame:
    """T1: one row per head with TR, TL, DLA-TR, DLA-TL (means over the scoring prompts)
    and, when given, the induction score."""
    ok = cache["answer_index"] >= 0
    scores = tsla_head_scores(cache["head_out"][ok], cache["W_Y"], cache["answer_index"][ok])
    L, H = scores["tr"].shape
    rows = {"layer": [l for l in range(L) for _ in range(H)], "head": [h for _ in range(L) for h in range(H)]}
    for k, v in scores.items():
        rows[k] = v.flatten().tolist()
    df = pd.DataFrame(rows)
    df["n"] = int(ok.sum())
    if induction is not None:
        df = df.merge(induction[["layer", "head", "induction"]], on=["layer", "head"], how="left")
    return df


def score_matrix(df: pd.DataFrame, col: str) -> torch.Tensor:
    layer, head = df["layer"].to_numpy(), df["head"].to_numpy()
    m = torch.full((int(layer.max()) + 1, int(head.max()) + 1), float("nan"), dtype=torch.float64)
    m[layer, head] = torch.tensor(df[col].to_numpy(), dtype=torch.float64)
    return m


def overlap_rows(df: pd.DataFrame, top_percent: float, pairs=(("tr", "induction"), ("tr", "tl"), ("tl", "induction"))):
    """T2 rows for one (model, dataset): Jaccard of the top sets, Kendall tau and Spearman rho."""
    out = []
    for a, b in pairs:
        ma, mb = score_matrix(df, a), score_matrix(df, b)
        sa, sb = top_set(ma, top_percent), top_set(mb, top_percent)
        row = {"pair": f"{SCORE_COLUMNS[a]}-{SCORE_COLUMNS[b]}", "jaccard": jaccard(sa, sb),
               "top_k": len(sa), "n_heads": ma.numel()}
        row.update(rank_correlations(ma, mb))
        # Expected Jaccard of two random top-k sets, for reference.
        k, n = len(sa), ma.numel()
        exp_inter = k * k / n
        row["jaccard_random"] = exp_inter / (2 * k - exp_inter)
        out.append(row)
    return out
