"""Head sets and reference activations for the ablation and steering experiments (T5-T7,
L4, Y5-Y8). The interventions themselves are values of the model layer
(`icl_heads.model.interventions`); every evaluation under them goes through
`icl_heads.model.evaluate`."""
from __future__ import annotations

import random

import torch

from .model import HeadAblation, HookedModel, ResidAdd, left_pad
from .prompts import Prompt


def random_heads(n_layers: int, n_heads: int, k: int, seed: int, exclude=()) -> list[tuple[int, int]]:
    pool = [(l, h) for l in range(n_layers) for h in range(n_heads) if (l, h) not in set(exclude)]
    return sorted(random.Random(seed).sample(pool, k))


def ablation(heads, mode: str, means: torch.Tensor | None = None, norm: str = "frozen") -> HeadAblation:
    return HeadAblation(sorted(heads), mode=mode, means=means if mode == "mean" else None, norm=norm)


def z_reads(model: HookedModel) -> dict[str, str]:
    """Every layer's attn.hook_z at every position (a `hooks=` argument of `run`)."""
    return {f"blocks.{l}.attn.hook_z": "all" for l in range(model.n_layers)}


def mean_z(model: HookedModel, prompts: list[Prompt], batch_size: int = 8) -> torch.Tensor:
    """Each head's z averaged over every real token position of the prompts: [L, H, d_head]
    (the reference activation of mean ablation)."""
    total = torch.zeros(model.n_layers, model.n_heads, model.d_head, dtype=torch.float64)
    count = 0
    for s in range(0, len(prompts), batch_size):
        ps = prompts[s:s + batch_size]
        batch = left_pad([p.input_ids for p in ps], model.pad_id)
        grabbed = model.run(batch, want=(), hooks=z_reads(model)).hooks
        m = batch.attention_mask.bool()
        for l in range(model.n_layers):
            z = grabbed[f"blocks.{l}.attn.hook_z"].view(*m.shape, model.n_heads, model.d_head)
            total[l] += z[m.to(z.device)].double().sum(0).cpu()
        count += int(m.sum())
    return (total / count).float()


def steer(layer: int, vector: torch.Tensor, position: int = -1):
    return ResidAdd(layer, vector, positions=(position,))
