"""Function-vector (FV) head scores by causal mediation (Todd et al.; Yin & Steinhardt Y2).

For a task: a head's mean z at the final position N over clean n-shot prompts is patched,
at N only, into prompts whose demonstration answers are shuffled; its score is the rise
in the probability of the correct answer's first token, averaged over prompts (and then
over scoring tasks).

Because the patch touches only position N, every corrupted prompt's prefix (tokens
0..N-1) is run once with a key/value cache shared by every head's patched final step,
and a row patched at layer l joins the pass at block l, where it still equals the unpatched row
(`fv_scores_fast`). `fv_scores_reference` runs
one full forward pass per (prompt, head); the two agree to float precision (tested).
"""
from __future__ import annotations

import sys

import torch
from tqdm import tqdm

from .counting import layer_groups
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
    return total / n if model.dtype == torch.float64 else (total / n).float()


def mean_head_z(model: HookedModel, prompts: list[Prompt], batch_size: int = 8) -> torch.Tensor:
    """Mean z at N over clean prompts: [L, H, d_head]."""
    return mean_at_final(model, prompts, "z", batch_size)


def _answer_prob(logits: torch.Tensor, token: int) -> torch.Tensor:
    """[rows] p(token) = exp(logit_token - logsumexp(logits)), all in float64: the same number as
    a float64 softmax of the whole [rows, V] (to ~1e-16), without writing the softmax that only
    one column is read from (on Gemma 3's 262k-token vocabulary, 1.7x less time per row)."""
    x = logits.double()
    return torch.exp(x[:, token] - torch.logsumexp(x, -1))


def fv_scores_fast(model: HookedModel, corrupted: list[Prompt], means: torch.Tensor, chunk: int = 1024,
                   progress: bool = False, desc: str = "FV") -> torch.Tensor:
    """[P, L, H] rise in p(answer) when each head's mean z is patched in at N.

    Per prompt: the prefix (tokens 0..N-1) runs once into a key/value cache. Every head's
    patched final step then runs as a branch of that one cache (`run(branches=True)`: the rows
    are columns of one sequence at position N, each attending to the prefix and itself, so no
    row copies the cache), beside row 0, the unpatched final step. The rows are ordered by
    layer and join the pass at their own layer (`run(grow=...)`): below layer l a row patched
    at layer l equals row 0, so block l runs only row 0 and the rows of layers <= l, and a
    head of layer l costs blocks l..L-1 instead of the whole model. A pass holds at most
    `chunk` heads (consecutive layers; each pass runs its own row 0). The final norm and
    unembedding then run once over every row, vocab block by block, p(answer) in float64."""
    L, H = model.n_layers, model.n_heads
    groups = layer_groups(L, H, chunk)
    final = f"blocks.{L - 1}.hook_resid_post"   # the input of the final norm
    last = {final: "last"}
    no_logits = torch.zeros(0, dtype=torch.long)
    out = torch.zeros(len(corrupted), L, H, dtype=torch.float64)
    for i, p in enumerate(tqdm(corrupted, desc=desc, file=sys.stderr, disable=not progress, unit="prompt")):
        b = Batch(torch.tensor([p.input_ids]))
        prefix = model.prefix(b, b.input_ids.shape[1] - 1)
        probs = []
        for a, z in groups:
            hs = [(l, h) for l in range(a, z) for h in range(H)]
            k = 1 + len(hs)
            grow = [1 if l < a else 1 + (min(l, z - 1) - a + 1) * H for l in range(L)]
            got = model.run(b.repeat_interleave(k), ivs=[RowHeadPatch(hs, means[a:z].reshape(len(hs), -1), first_row=1)],
                            hooks=last, keep=no_logits, prefix=prefix, branches=True, grow=grow)
            pr = model.token_logprobs_from_resid(got.hooks[final], p.answer_token).exp()
            probs.append(pr[1:] - pr[0])
        out[i] = torch.cat(probs).view(L, H)
    return out if model.dtype == torch.float64 else out.float()


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
    return out if model.dtype == torch.float64 else out.float()
