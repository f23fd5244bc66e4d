"""Head scores: TSLA task recognition / task learning, DLA baselines, induction.

Notation as in SPEC.md: a = a head's output at the final position N in residual
space; w_y = effective unembedding of label token y (final-norm gain folded in).
"""
from __future__ import annotations

import torch

from .counting import n_of_percent


def label_basis(W_Y: torch.Tensor) -> torch.Tensor:
    """Orthonormal basis [d_model, r] of span(W_U^Y), W_Y given as [|Y|, d_model]."""
    Q, R = torch.linalg.qr(W_Y.T.double())
    keep = R.diagonal().abs() > 1e-10 * R.diagonal().abs().max()
    return Q[:, keep].to(W_Y.dtype)


def tr_score(a: torch.Tensor, W_Y: torch.Tensor) -> torch.Tensor:
    """TR = ||Proj_span(W_U^Y) a||_2 for a [..., d_model] -> [...]."""
    Q = label_basis(W_Y)
    return (a.double() @ Q.double()).norm(dim=-1).to(a.dtype)


def tl_score(a: torch.Tensor, W_Y: torch.Tensor, correct: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """TL = mean_{y' != y*} a.(w_y* - w_y') / TR.

    a: [B, ..., d_model]; correct: [B] index of y* in the label set."""
    logits = a.double() @ W_Y.double().T                     # [B, ..., |Y|]
    n = W_Y.shape[0]
    idx = correct.view(-1, *([1] * (logits.dim() - 1))).expand(*logits.shape[:-1], 1)
    l_star = logits.gather(-1, idx).squeeze(-1)
    mean_other = (logits.sum(-1) - l_star) / (n - 1)
    tr = tr_score(a, W_Y).double()
    return ((l_star - mean_other) / tr.clamp_min(eps)).to(a.dtype)


def dla_scores(a: torch.Tensor, W_Y: torch.Tensor, correct: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """DLA-TR = sum_y a.w_y and DLA-TL = a.w_y*."""
    logits = a @ W_Y.T
    idx = correct.view(-1, *([1] * (logits.dim() - 1))).expand(*logits.shape[:-1], 1)
    return logits.sum(-1), logits.gather(-1, idx).squeeze(-1)


def tsla_head_scores(head_out: torch.Tensor, W_Y: torch.Tensor, correct: torch.Tensor) -> dict[str, torch.Tensor]:
    """Per-head scores averaged over prompts: head_out [B, L, H, d_model] -> each [L, H]."""
    tr = tr_score(head_out, W_Y)
    tl = tl_score(head_out, W_Y, correct)
    dtr, dtl = dla_scores(head_out, W_Y, correct)
    return {"tr": tr.mean(0), "tl": tl.mean(0), "dla_tr": dtr.mean(0), "dla_tl": dtl.mean(0)}


# ------------------------------------------------------------------ induction
def induction_sequences(n: int, seq_len: int, vocab_ids: torch.Tensor, bos: int | None, generator) -> torch.Tensor:
    """n sequences [BOS] + r + r, r = seq_len tokens drawn uniformly from vocab_ids."""
    return repeated_sequences(vocab_ids[torch.randint(len(vocab_ids), (n, seq_len), generator=generator)], bos)


def repeated_sequences(r: torch.Tensor, bos: int | None) -> torch.Tensor:
    """[BOS] + r + r for each row of r [n, seq_len] (no BOS where the tokenizer has none)."""
    seqs = torch.cat([r, r], 1)
    if bos is not None:
        seqs = torch.cat([torch.full((len(r), 1), bos, dtype=seqs.dtype), seqs], 1)
    return seqs


INDUCTION_AVERAGES = ("repeated", "all_rows")
INDUCTION_AVERAGE_TEXT = {
    "repeated": "mean over the repeated half's query rows of the attention to the token after the earlier occurrence",
    "all_rows": "Yin & Steinhardt's code (TransformerLens detect_head induction_head, mul): attention on every earlier "
                "duplicate shifted by one, summed over all query rows / number of rows, mean over sequences"}


def induction_detection_pattern(tokens: torch.Tensor) -> torch.Tensor:
    """[B, T, T] 1 at (i, j + 1) wherever token j < i equals token i (every earlier duplicate,
    shifted one to the right), else 0: the induction pattern of TransformerLens's
    `head_detector`, which Yin & Steinhardt's code scores with."""
    eq = (tokens[:, :, None] == tokens[:, None, :]).double()            # [B, i, j]
    dup = torch.tril(eq, diagonal=-1)
    det = torch.zeros_like(dup)
    det[:, :, 1:] = dup[:, :, :-1]
    return torch.tril(det)


def induction_score_from_pattern(pattern: torch.Tensor, seq_len: int, has_bos: bool = True,
                                 average: str = "repeated", tokens: torch.Tensor | None = None) -> torch.Tensor:
    """Induction score of every head from attention patterns on [BOS] + r + r sequences.

    average "repeated" (the default, Olsson et al.'s definition): the mean over the query rows
    of the repeated half of the attention to the token after the row's earlier occurrence.
    "all_rows" (Yin & Steinhardt's code: TransformerLens `detect_head(..., "induction_head")`,
    error measure "mul"): the attention on the detection pattern (`induction_detection_pattern`
    of `tokens`, [B, T]) summed over every query row and divided by the total attention (the
    number of rows), then averaged over sequences; about seq_len / (2 seq_len + 1) of the
    default on these sequences, with the same ranking.

    pattern: [B, L, H, T, T] (query, key). Returns [L, H]."""
    if average == "all_rows":
        if tokens is None:
            raise ValueError("average='all_rows' needs the tokens (the detection pattern comes from them)")
        det = induction_detection_pattern(tokens).to(pattern.dtype)[:, None, None]   # [B, 1, 1, T, T]
        score = (pattern * det).sum((-1, -2)) / pattern.sum((-1, -2))
        return score.mean(0)
    if average != "repeated":
        raise ValueError(f"induction average {average!r} is not one of {', '.join(INDUCTION_AVERAGES)}")
    off = 1 if has_bos else 0
    q = torch.arange(off + seq_len, off + 2 * seq_len)      # second copy
    k = q - seq_len + 1                                        # token after the earlier occurrence
    vals = pattern[..., q, k]                                  # [B, L, H, seq_len]
    return vals.mean(-1).mean(0)


def ordinary_token_ids(tokenizer, vocab_size: int) -> torch.Tensor:
    """Token ids that are not special or placeholder tokens (e.g. <unused12>)."""
    special = set(tokenizer.all_special_ids)
    toks = tokenizer.convert_ids_to_tokens(list(range(vocab_size)))
    keep = [i for i, t in enumerate(toks) if i not in special and t is not None
            and not (t.startswith("<") and t.endswith(">"))]
    return torch.tensor(keep, dtype=torch.long)


# ------------------------------------------------------------------ rankings
def top_set(scores: torch.Tensor, percent: float) -> set[tuple[int, int]]:
    """Top `percent`% heads (`n_of_percent`) of a [L, H] score table as (layer, head) pairs;
    ties by (layer, head) index."""
    L, H = scores.shape
    k = n_of_percent(L * H, percent)
    flat = scores.flatten()
    order = torch.argsort(flat, descending=True, stable=True)[:k]
    return {(int(i) // H, int(i) % H) for i in order}


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if (a or b) else float("nan")


def rank_correlations(x, y) -> dict[str, float]:
    from scipy.stats import kendalltau, spearmanr

    x = torch.as_tensor(x).flatten().double().numpy()
    y = torch.as_tensor(y).flatten().double().numpy()
    return {"kendall_tau": float(kendalltau(x, y).statistic), "spearman_rho": float(spearmanr(x, y).statistic)}
