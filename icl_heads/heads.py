"""Head families that need their own forward passes: induction (Y1)."""
from __future__ import annotations

import sys

import pandas as pd
import torch
from tqdm import tqdm

from .model import HookedModel, left_pad
from .scores import induction_score_from_pattern, induction_sequences, repeated_sequences, ordinary_token_ids


def induction_scores(model: HookedModel, n_sequences: int, seq_len: int, batch_size: int, seed: int,
                     progress: bool = True, average: str = "repeated", given: list[list[int]] | None = None) -> torch.Tensor:
    """Y1: attention from each repeated token to the token after its first occurrence, [L, H]
    (`average`: see `scores.induction_score_from_pattern`). `given`: the first halves to use
    instead of random tokens (equal lengths; n_sequences and seq_len then come from them)."""
    bos = model.tokenizer.bos_token_id
    if given is not None:
        r = torch.tensor(given, dtype=torch.long)
        n_sequences, seq_len = r.shape
        seqs = repeated_sequences(r, bos)
    else:
        g = torch.Generator().manual_seed(seed)
        vocab = ordinary_token_ids(model.tokenizer, min(model.cfg.vocab_size, len(model.tokenizer)))
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


def read_sequences(path, vocab_size: int) -> list[list[int]]:
    """Given induction sequences (config key induction.sequences): a JSON list of equal-length
    lists of token ids below the model's vocabulary size."""
    import json
    from pathlib import Path

    from .errors import DataError

    key = "config key `induction.sequences`"
    try:
        seqs = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise DataError(f"{key}: {path} is not a readable JSON file ({e})") from e
    if (not isinstance(seqs, list) or not seqs or not all(isinstance(q, list) and q for q in seqs)
            or not all(isinstance(t, int) and not isinstance(t, bool) for q in seqs for t in q)):
        raise DataError(f"{key}: {path} must hold a non-empty list of non-empty lists of token ids")
    if len({len(q) for q in seqs}) != 1:
        raise DataError(f"{key}: the sequences of {path} have lengths {sorted({len(q) for q in seqs})}; give them one length")
    bad = [t for q in seqs for t in q if not 0 <= t < vocab_size]
    if bad:
        raise DataError(f"{key}: token ids {sorted(set(bad))[:5]} of {path} are outside the model's vocabulary (0..{vocab_size - 1})")
    return seqs


def scores_frame(m: torch.Tensor, name: str) -> pd.DataFrame:
    L, H = m.shape
    return pd.DataFrame({"layer": [l for l in range(L) for _ in range(H)],
                         "head": [h for _ in range(L) for h in range(H)], name: m.flatten().tolist()})
