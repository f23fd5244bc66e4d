"""Function-vector (FV) head scores by causal mediation (Todd et al.; Yin & Steinhardt Y2).

For a task: a head's mean z at the final position N over clean n-shot prompts is patched,
at N only, into prompts whose demonstration answers are shuffled; its score is the rise
in the probability of the correct answer's first token, averaged over prompts (and then
over scoring tasks).

Because the patch touches only position N, every corrupted prompt's prefix (tokens
0..N-1) is run once with a key/value cache, and the final step of every head's patched
run goes in one batch over that cache (`fv_scores_fast`). `fv_scores_reference` runs
one full forward pass per (prompt, head); the two agree to float precision (tested).
"""
from __future__ import annotations

import sys

import torch
from tqdm import tqdm

from .model import Batch, HeadPatch, HookedModel, RowHeadPatch, left_pad
from .prompts import Prompt


def mean_at_final(model: HookedModel, prompts: list[Prompt], want: str, batch_size: int = 8) -> torch.Tensor:
    """A per-head read at N averaged over prompts: want "z" -> [L, H, d_head]; "heads" ->
    the residual-space head outputs [L, H, d_model]."""
    attr = {"z": "z", "heads": "head_out"}[want]
    total, n = None, 0
    for s in range(0, len(prompts), batch_size):
        ps = prompts[s:s + batch_size]
        x = getattr(model.run(left_pad([p.input_ids for p in ps], model.pad_id), want=(want,)), attr).double()
        total = x.sum(0) if total is None else total + x.sum(0)
        n += len(ps)
    return (total / n).float()


def mean_head_z(model: HookedModel, prompts: list[Prompt], batch_size: int = 8) -> torch.Tensor:
    """Mean z at N over clean prompts: [L, H, d_head]."""
    return mean_at_final(model, prompts, "z", batch_size)


def _answer_prob(logits: torch.Tensor, token: int) -> torch.Tensor:
    return torch.softmax(logits.double(), -1)[:, token]


def fv_scores_fast(model: HookedModel, corrupted: list[Prompt], means: torch.Tensor, chunk: int = 64,
                   progress: bool = False, desc: str = "FV") -> torch.Tensor:
    """[P, L, H] rise in p(answer) when each head's mean z is patched in at N (KV-cache path)."""
    heads = [(l, h) for l in range(model.n_layers) for h in range(model.n_heads)]
    out = torch.zeros(len(corrupted), model.n_layers, model.n_heads, dtype=torch.float64)
    for i, p in enumerate(tqdm(corrupted, desc=desc, file=sys.stderr, disable=not progress, unit="prompt")):
        b = Batch(torch.tensor([p.input_ids]))
        prefix = model.prefix(b, b.input_ids.shape[1] - 1)
        base = _answer_prob(model.run(b, prefix=prefix).logits, p.answer_token)[0]
        for s in range(0, len(heads), chunk):
            hs = heads[s:s + chunk]
            vals = torch.stack([means[l, h] for l, h in hs])
            logits = model.run(b.repeat_interleave(len(hs)), ivs=[RowHeadPatch(hs, vals)],
                               prefix=prefix.repeat_interleave(len(hs)), consume_prefix=True).logits
            probs = _answer_prob(logits, p.answer_token)
            for (l, h), pr in zip(hs, probs):
                out[i, l, h] = pr - base
    return out.float()


def fv_scores_reference(model: HookedModel, corrupted: list[Prompt], means: torch.Tensor) -> torch.Tensor:
    """The straightforward version: one full forward pass per (prompt, head)."""
    out = torch.zeros(len(corrupted), model.n_layers, model.n_heads, dtype=torch.float64)
    for i, p in enumerate(corrupted):
        b = Batch(torch.tensor([p.input_ids]))
        base = _answer_prob(model.run(b).logits, p.answer_token)[0]
        for l in range(model.n_layers):
            for h in range(model.n_heads):
                logits = model.run(b, ivs=[HeadPatch(l, h, means[l, h], position=-1)]).logits
                out[i, l, h] = _answer_prob(logits, p.answer_token)[0] - base
    return out.float()
