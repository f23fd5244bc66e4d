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
    layer, head = df["layer"].to_numpy(copy=True), df["head"].to_numpy(copy=True)
    m = torch.full((int(layer.max()) + 1, int(head.max()) + 1), float("nan"), dtype=torch.float64)
    m[layer, head] = torch.tensor(df[col].to_numpy(copy=True), dtype=torch.float64)
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


# ------------------------------------------------------------------ rankings across scores and datasets
def top_heads(df: pd.DataFrame, col: str, percent: float) -> list[tuple[int, int]]:
    return sorted(top_set(score_matrix(df, col), percent))


def rank_percentile(df: pd.DataFrame, col: str) -> pd.Series:
    """Position of each head in the ranking by `col` as 'top p%' (best head: 100/n, worst: 100)."""
    r = df[col].rank(ascending=False, method="average")
    return 100.0 * r / len(df)


def conditional_mean_percentage(df: pd.DataFrame, ih_percent: float = 10.0) -> dict[str, float]:
    """T3: where the top `ih_percent`% induction heads sit in the TR and TL rankings
    (mean 'top p%' of those heads; 50 = no relation, small = IH heads rank high)."""
    ih = set(top_heads(df, "induction", ih_percent))
    mask = [(l, h) in ih for l, h in zip(df["layer"], df["head"])]
    return {"tr": float(rank_percentile(df, "tr")[mask].mean()), "tl": float(rank_percentile(df, "tl")[mask].mean()),
            "n_ih_heads": len(ih)}


def consistency_rows(tables: dict[str, pd.DataFrame], top_percent: float, cols=("tr", "tl", "induction")):
    """T4: agreement of each score's ranking between every pair of datasets."""
    names = sorted(tables)
    rows = []
    for col in cols:
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                ma, mb = score_matrix(tables[a], col), score_matrix(tables[b], col)
                rc = rank_correlations(ma, mb)
                rows.append({"score": SCORE_COLUMNS[col], "dataset_a": a, "dataset_b": b,
                             "kendall_tau": rc["kendall_tau"], "kendall_normalised": (rc["kendall_tau"] + 1) / 2,
                             "spearman_rho": rc["spearman_rho"],
                             "jaccard": jaccard(top_set(ma, top_percent), top_set(mb, top_percent))})
    return rows


# ------------------------------------------------------------------ geometry (T8)
def subspace_alignment(h: torch.Tensor, W_Y: torch.Tensor) -> torch.Tensor:
    """cos(h, Proj_span(W_U^Y) h) = ||P h|| / ||h|| for h [..., d]."""
    from .scores import label_basis

    Q = label_basis(W_Y).double()
    h = h.double()
    return ((h @ Q).norm(dim=-1) / h.norm(dim=-1).clamp_min(1e-12)).float()


def logit_difference(h: torch.Tensor, W_Y: torch.Tensor, correct: torch.Tensor) -> torch.Tensor:
    """h.w_y* - mean_{y' != y*} h.w_y' for h [B, d] (or [B, ..., d])."""
    logits = h.double() @ W_Y.double().T
    idx = correct.view(-1, *([1] * (logits.dim() - 1))).expand(*logits.shape[:-1], 1)
    star = logits.gather(-1, idx).squeeze(-1)
    return ((star - (logits.sum(-1) - star) / (W_Y.shape[0] - 1))).float()


def rms_normalise(h: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """The final RMSNorm without its gain (the gain is folded into W_Y)."""
    return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)


def head_set_vector(head_out: torch.Tensor, heads) -> torch.Tensor:
    """Sum over `heads` of their mean output over prompts: head_out [B, L, H, d] -> [d]."""
    mean = head_out.mean(0)
    return torch.stack([mean[l, h] for l, h in heads]).sum(0) if heads else torch.zeros(mean.shape[-1])


def best_head_per_layer(df: pd.DataFrame, col: str) -> dict[int, int]:
    return {int(l): int(g.loc[g[col].idxmax(), "head"]) for l, g in df.groupby("layer")}


LAYERWISE = ("tr_output_alignment", "tl_output_logit_diff", "hidden_alignment_change", "hidden_logit_diff_change")


def layerwise_per_prompt(resid: torch.Tensor, head_out: torch.Tensor, W_Y: torch.Tensor, correct: torch.Tensor,
                         tr_best: dict[int, int], tl_best: dict[int, int]) -> dict[str, torch.Tensor]:
    """The quantities of `layerwise_geometry` per prompt: {name in LAYERWISE: [B, L]}. Each is
    a row-wise function of one prompt, so the layerwise table of any resample of the prompts is
    the mean of these rows over it (the T8 bootstrap resamples rows instead of recomputing)."""
    L = head_out.shape[1]
    hn = rms_normalise(resid)
    align = subspace_alignment(hn, W_Y)                       # [B, L+1]
    ld = logit_difference(hn, W_Y, correct)                   # [B, L+1]
    return {"tr_output_alignment": torch.stack([subspace_alignment(head_out[:, l, tr_best[l]], W_Y) for l in range(L)], 1),
            "tl_output_logit_diff": torch.stack([logit_difference(head_out[:, l, tl_best[l]], W_Y, correct)
                                                 for l in range(L)], 1),
            "hidden_alignment_change": align[:, 1:] - align[:, :-1],
            "hidden_logit_diff_change": ld[:, 1:] - ld[:, :-1]}


def layerwise_geometry(resid: torch.Tensor, head_out: torch.Tensor, W_Y: torch.Tensor, correct: torch.Tensor,
                       tr_best: dict[int, int], tl_best: dict[int, int]) -> pd.DataFrame:
    """Per layer l: the subspace alignment of the output of layer l's highest-TR head and the
    logit difference of its highest-TL head's output, next to the change of the (normalised)
    hidden state's alignment and logit difference across block l (means over the prompts of
    `layerwise_per_prompt`). resid [B, L+1, d], head_out [B, L, H, d]."""
    return layerwise_table(layerwise_per_prompt(resid, head_out, W_Y, correct, tr_best, tl_best), tr_best, tl_best)


def layerwise_table(per: dict[str, torch.Tensor], tr_best: dict[int, int], tl_best: dict[int, int]) -> pd.DataFrame:
    """The table of `layerwise_geometry` from its per-prompt rows (`layerwise_per_prompt`)."""
    L = per[LAYERWISE[0]].shape[1]
    df = pd.DataFrame({"layer": range(L), "tr_head": [tr_best[l] for l in range(L)], "tl_head": [tl_best[l] for l in range(L)]})
    for k in LAYERWISE:
        df[k] = per[k].mean(0).double().numpy()
    return df
