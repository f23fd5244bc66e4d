"""Yin & Steinhardt (Paper C) experiments beyond scoring: ablation curves (Y5, Y8),
token-loss difference (Y6) and FV add-back (Y7).

Head sets at k% of heads, for a pair of score matrices (induction, FV):
  IH / FV          the top k% by that score;
  IH_excl / FV_excl  the top k% by that score among heads *outside* the other score's
                   top `exclude_percent`% set (Yin & Steinhardt: 2%);
  random           k% drawn uniformly, one set per seed.
Ablation types: "mean" (z := the head's mean z over every token of the task's prompts),
"zero" (z := 0) and "replace" (z := the head's z at one token drawn at random from the
reference prompts, one draw per head and condition, the same for every position)."""
from __future__ import annotations

import random
import sys

import torch
from tqdm import tqdm

from .fv import mean_at_final
from .interventions import z_reads
from .model import Batch, HeadAblation, HookedModel, ResidAdd, first_touched_layer, left_pad
from .prompts import Prompt
from .scores import n_of_percent, top_set


def ranked(scores: torch.Tensor, exclude=()) -> list[tuple[int, int]]:
    """Heads by decreasing score (ties by index), leaving out `exclude`."""
    L, H = scores.shape
    ex = set(map(tuple, exclude))
    order = sorted(((l, h) for l in range(L) for h in range(H)), key=lambda x: (-float(scores[x]), x))
    return [x for x in order if x not in ex]


def head_sets(ih: torch.Tensor, fv: torch.Tensor, percents, seeds, exclude_percent: float = 2.0,
              seed_base: int = 0) -> list[dict]:
    """Every (family, percent, seed) head set of the Y5 curves."""
    L, H = ih.shape
    n = L * H
    ih_top, fv_top = top_set(ih, exclude_percent), top_set(fv, exclude_percent)
    out = []
    for p in percents:
        k = n_of_percent(n, p)
        out.append({"family": "IH", "percent": p, "seed": None, "heads": ranked(ih)[:k]})
        out.append({"family": "FV", "percent": p, "seed": None, "heads": ranked(fv)[:k]})
        out.append({"family": "IH_excl", "percent": p, "seed": None, "heads": ranked(ih, exclude=fv_top)[:k]})
        out.append({"family": "FV_excl", "percent": p, "seed": None, "heads": ranked(fv, exclude=ih_top)[:k]})
        for s in seeds:
            pool = [(l, h) for l in range(L) for h in range(H)]
            heads = sorted(random.Random(f"{seed_base}/{p}/{s}").sample(pool, k))
            out.append({"family": "random", "percent": p, "seed": s, "heads": heads})
    for d in out:
        d["heads"] = sorted(d["heads"])
        d["k"] = len(d["heads"])
    return out


def token_z_sample(model: HookedModel, prompts: list[list[int]], n_draws: int, seed: int,
                   batch_size: int = 8) -> torch.Tensor:
    """`n_draws` independent samples of every head's z, each at one (prompt, token) drawn
    uniformly from the real tokens of `prompts`: [n_draws, L, H, d_head]."""
    rng = random.Random(seed)
    lengths = [len(p) for p in prompts]
    picks = []
    for _ in range(n_draws):
        i = rng.randrange(len(prompts))
        picks.append((i, rng.randrange(lengths[i])))
    out = torch.zeros(n_draws, model.n_layers, model.n_heads, model.d_head)
    need = sorted({i for i, _ in picks})
    for s in range(0, len(need), batch_size):
        idx = need[s:s + batch_size]
        batch = left_pad([prompts[i] for i in idx], model.pad_id)
        grabbed = model.run(batch, want=(), hooks=z_reads(model)).hooks
        W = batch.input_ids.shape[1]
        for row, i in enumerate(idx):
            for d, (pi, t) in enumerate(picks):
                if pi != i:
                    continue
                col = W - lengths[i] + t
                for l in range(model.n_layers):
                    out[d, l] = grabbed[f"blocks.{l}.attn.hook_z"][row, col].view(model.n_heads, model.d_head).float().cpu()
    return out


def ablation_for(heads, mode: str, means: torch.Tensor | None = None, replacement: torch.Tensor | None = None,
                 norm: str = "frozen"):
    if mode == "mean":
        return HeadAblation(heads, mode="mean", means=means, norm=norm)
    if mode == "zero":
        return HeadAblation(heads, mode="zero", norm=norm)
    if mode == "replace":
        return HeadAblation(heads, mode="replace", means=replacement, norm=norm)
    raise ValueError(f"unknown ablation type {mode!r}: use mean, zero or replace")


def condition_name(mode: str, s: dict) -> str:
    tail = f"/seed{s['seed']}" if s["seed"] is not None else ""
    return f"{mode}/{s['family']}/{s['percent']:g}{tail}"


# ------------------------------------------------------------------ Y6 token loss
@torch.no_grad()
def token_losses(model: HookedModel, docs: torch.Tensor, positions, ivs=(), batch_size: int = 4) -> torch.Tensor:
    """Cross-entropy of token t of each document given tokens < t, at each t in `positions`:
    [N, len(positions)]. `docs` is [N, T] (equal lengths, no padding; T > max(positions))."""
    positions = list(positions)
    keep = torch.tensor([t - 1 for t in positions])
    out = []
    for s in range(0, docs.shape[0], batch_size):
        ids = docs[s:s + batch_size]
        logits = model.run(Batch(ids), want=("logits",), ivs=list(ivs), keep=keep).logits
        out.append(_nll_at(logits, ids, positions))
    return torch.cat(out)


def _nll_at(logits: torch.Tensor, ids: torch.Tensor, positions: list) -> torch.Tensor:
    """-log p(ids[:, t]) from the logits kept at the columns t - 1, t in positions: [B, len(positions)]."""
    logp = torch.log_softmax(logits.float(), -1).cpu()
    return -logp.gather(-1, ids[:, positions][..., None])[..., 0]


def token_losses_shared(model: HookedModel, docs: torch.Tensor, positions, conditions: dict, batch_size: int = 4,
                        desc: str | None = None) -> dict:
    """token_losses under every condition (name -> interventions) at once, equal to one
    token_losses call per condition: per batch one clean pass records every block's output, and a
    condition whose earliest intervention is at block l replays blocks < l from it (they see the
    clean inputs exactly), so it runs only blocks >= l. {name: [N, len(positions)]}."""
    positions = list(positions)
    keep = torch.tensor([t - 1 for t in positions])
    L = model.n_layers
    out = {name: [] for name in conditions}
    starts = range(0, docs.shape[0], batch_size)
    bar = tqdm(total=len(starts) * len(conditions), desc=desc, unit="pass", file=sys.stderr, disable=desc is None)
    for s in starts:
        ids = docs[s:s + batch_size]
        clean = model.run(Batch(ids), want=("logits", "block_out"), keep=keep)
        outs = clean.extras["block_out"]
        for name, ivs in conditions.items():
            ivs = list(ivs)
            if ivs:
                first = first_touched_layer(ivs, L)
                replay = ([outs[first - 1]] * first, first) if 0 < first < L else None
                logits = model.run(Batch(ids), want=("logits",), ivs=ivs, keep=keep, replay=replay).logits
            else:
                logits = clean.logits
            out[name].append(_nll_at(logits, ids, positions))
            bar.update(1)
    bar.close()
    return {name: torch.cat(v) if v else torch.zeros(0, len(positions)) for name, v in out.items()}


def long_documents(tokenizer, texts: list[str], length: int, n_docs: int | None = None) -> torch.Tensor:
    """The first `length` tokens (BOS included where the tokenizer adds one) of every text
    long enough; [N, length]."""
    docs = []
    for t in texts:
        ids = tokenizer(t)["input_ids"]
        if len(ids) >= length:
            docs.append(ids[:length])
        if n_docs is not None and len(docs) >= n_docs:
            break
    if not docs:
        return torch.zeros(0, length, dtype=torch.long)
    return torch.tensor(docs, dtype=torch.long)


# ------------------------------------------------------------------ Y7 add-back
def mean_head_outputs(model: HookedModel, prompts: list[Prompt], batch_size: int = 8) -> torch.Tensor:
    """Every head's output at N in residual space, averaged over prompts: [L, H, d_model]."""
    return mean_at_final(model, prompts, "heads", batch_size)


def function_vector(head_means: torch.Tensor, heads) -> torch.Tensor:
    """Todd et al.'s function vector: the sum of the heads' mean outputs."""
    return torch.stack([head_means[l, h] for l, h in heads]).sum(0)


def add_back(layer: int, vector: torch.Tensor) -> ResidAdd:
    """Add `vector` to the input of block `layer` at the final position only."""
    return ResidAdd(layer, vector, positions=(-1,))


def rms(v: torch.Tensor) -> torch.Tensor:
    """Root mean square over the last (d_model) dimension."""
    return v.float().pow(2).mean(-1).sqrt()


def resid_rms_at_final(model: HookedModel, prompts: list[Prompt], batch_size: int = 8) -> torch.Tensor:
    """[n_layers] the mean over `prompts` of the RMS of resid_pre of each block at the final
    position in the clean pass: the yardstick of the relative add-back scales."""
    total = torch.zeros(model.n_layers, dtype=torch.float64)
    for s in range(0, len(prompts), batch_size):
        ps = prompts[s:s + batch_size]
        out = model.run(left_pad([p.input_ids for p in ps], model.pad_id), want=("resid",))
        total += rms(out.resid[:, :model.n_layers]).double().sum(0)
    return (total / len(prompts)).float()


def sweep_vector(v: torch.Tensor, scale, resid_rms: float) -> torch.Tensor:
    """The add-back vector at one sweep scale: "raw" = v itself (Todd et al., Yin & Steinhardt);
    a number a = v rescaled so that its RMS is a x the residual stream's RMS at the injection
    layer (`resid_rms`), i.e. a vector as large relative to the stream at every layer and model."""
    if scale == "raw":
        return v
    return v * (float(scale) * resid_rms / float(rms(v)))
