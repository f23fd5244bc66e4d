"""Head families that need their own forward passes: induction (Y1)."""
from __future__ import annotations

import sys

import pandas as pd
import torch
from tqdm import tqdm

from .model import HookedModel, left_pad
from .scores import induction_score_from_pattern, induction_sequences, ordinary_token_ids


def induction_scores(model: HookedModel, n_sequences: int, seq_len: int, batch_size: int, seed: int,
                     progress: bool = True, average: str = "repeated") -> torch.Tensor:
    """Y1: attention from each repeated token to the token after its first occurrence, [L, H]
    (`average`: see `scores.induction_score_from_pattern`)."""
    g = torch.Generator().manual_seed(seed)
    vocab = ordinary_token_ids(model.tokenizer, min(model.cfg.vocab_size, len(model.tokenizer)))
    bos = model.tokenizer.bos_token_id
    seqs = induction_sequences(n_sequences, seq_len, vocab, bos, g)
    total = torch.zeros(model.n_layers, model.n_heads, dtype=torch.float64)
    for s in tqdm(range(0, n_sequences, batch_size), desc=f"induction {model.name}", file=sys.stderr,
                  disable=not progress, unit="batch"):
        chunk = seqs[s:s + batch_size]
        out = model.run(left_pad(chunk.tolist(), model.pad_id), want=("attn_full",))
        pat = out.extras["attn_full"].double()
        total += induction_score_from_pattern(pat, seq_len, has_bos=bos is not None, average=average,
                                              tokens=chunk) * len(chunk)
    return (total / n_sequences).float()


def scores_frame(m: torch.Tensor, name: str) -> pd.DataFrame:
    L, H = m.shape
    return pd.DataFrame({"layer": [l for l in range(L) for _ in range(H)],
                         "head": [h for _ in range(L) for h in range(H)], name: m.flatten().tolist()})
