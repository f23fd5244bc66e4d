"""Batched evaluations under interventions (ablation, steering): only the final
position's logits are computed (`logits_to_keep=1`), prompts run in left-padded
batches, and the predictions are reduced to accuracy and TR ratio per query."""
from __future__ import annotations

import contextlib
import random
import sys
from dataclasses import dataclass

import torch
from tqdm import tqdm

from .cache import accuracy_and_tr_ratio
from .hooked import HeadAblation, HookedLM, ResidAdd, left_pad
from .prompts import Prompt


@dataclass
class EvalResult:
    correct: torch.Tensor   # [B] float 0/1: argmax == answer token
    in_set: torch.Tensor    # [B] float 0/1: argmax in the label token set
    argmax: torch.Tensor    # [B]


def _result(argmax: torch.Tensor, prompts: list[Prompt], labs: torch.Tensor) -> EvalResult:
    correct, in_set = accuracy_and_tr_ratio(argmax, torch.tensor([p.answer_token for p in prompts]), labs)
    return EvalResult(correct, in_set, argmax)


def evaluate(model: HookedLM, prompts: list[Prompt], label_tokens, ivs=(), batch_size: int = 8,
             progress: bool = False, desc: str = "eval") -> EvalResult:
    """Full-vocabulary argmax at N for every prompt under the interventions `ivs`."""
    labs = torch.as_tensor(list(label_tokens), dtype=torch.long)
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i].input_ids))
    arg = torch.empty(len(prompts), dtype=torch.long)
    for s in tqdm(range(0, len(order), batch_size), desc=desc, file=sys.stderr, disable=not progress, unit="batch"):
        idx = order[s:s + batch_size]
        batch = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        out = model.run(batch, want=("logits",), ivs=list(ivs))
        arg[torch.tensor(idx)] = out.logits.argmax(-1)
    return _result(arg, prompts, labs)


class _Replay(torch.nn.Module):
    """Stands in for a decoder block whose output is already known (it returns it as is)."""

    def __init__(self, output: torch.Tensor):
        super().__init__()
        self.output = output

    def forward(self, hidden_states, *args, **kwargs):
        return self.output


def first_touched_layer(ivs, n_layers: int) -> int:
    """The earliest block whose computation an intervention changes: blocks before it run
    exactly as in the clean pass."""
    first = n_layers
    for iv in ivs:
        if isinstance(iv, HeadAblation):
            first = min([first] + [l for l, _ in iv.heads])
        elif isinstance(iv, ResidAdd):
            first = min(first, iv.layer)
        else:  # HeadPatch and anything else with a layer
            first = min(first, getattr(iv, "layer", 0))
    return first


def evaluate_conditions(model: HookedLM, prompts: list[Prompt], label_tokens, conditions: dict, batch_size: int = 8,
                        progress: bool = False, desc: str = "conditions") -> dict[str, EvalResult]:
    """`evaluate` for many intervention sets on the same prompts, sharing the clean pass:
    each batch runs clean once, recording every block's output; a condition whose earliest
    intervention is at block l then replays blocks < l from that record and computes only
    blocks l..L-1 (exact: those blocks see the same inputs as in the clean pass)."""
    labs = torch.as_tensor(list(label_tokens), dtype=torch.long)
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i].input_ids))
    args = {name: torch.empty(len(prompts), dtype=torch.long) for name in conditions}
    base = model._base()
    originals = list(base.layers)
    firsts = {name: first_touched_layer(ivs, model.n_layers) for name, ivs in conditions.items()}
    batches = range(0, len(order), batch_size)
    for s in tqdm(batches, desc=desc, file=sys.stderr, disable=not progress, unit="batch"):
        idx = order[s:s + batch_size]
        batch = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        outs = [None] * model.n_layers
        handles = [layer.register_forward_hook(lambda m, a, o, l=l: outs.__setitem__(l, o))
                   for l, layer in enumerate(originals)]
        try:
            clean = model.run(batch, want=("logits",))
        finally:
            for h in handles:
                h.remove()
        rows = torch.tensor(idx)
        for name, ivs in conditions.items():
            first = firsts[name]
            if not ivs:
                args[name][rows] = clean.logits.argmax(-1)
                continue
            try:
                for l in range(first):
                    base.layers[l] = _Replay(outs[l])
                out = model.run(batch, want=("logits",), ivs=ivs)
            finally:
                for l in range(first):
                    base.layers[l] = originals[l]
            args[name][rows] = out.logits.argmax(-1)
    return {name: _result(a, prompts, labs) for name, a in args.items()}


def random_heads(n_layers: int, n_heads: int, k: int, seed: int, exclude=()) -> list[tuple[int, int]]:
    pool = [(l, h) for l in range(n_layers) for h in range(n_heads) if (l, h) not in set(exclude)]
    return sorted(random.Random(seed).sample(pool, k))


def ablation(heads, mode: str, means: torch.Tensor | None = None) -> HeadAblation:
    return HeadAblation(sorted(heads), mode=mode, means=means if mode == "mean" else None)


@contextlib.contextmanager
def capture_z(model: HookedLM):
    """While open, every forward pass leaves each layer's z at every position ([B, T, H*d_head],
    after interventions) in the yielded dict, keyed by layer."""
    grabbed = {}

    def grab(l):
        def f(module, args):
            grabbed[l] = args[0].detach()
        return f

    handles = [layer.self_attn.o_proj.register_forward_pre_hook(grab(l)) for l, layer in enumerate(model.layers)]
    try:
        yield grabbed
    finally:
        for h in handles:
            h.remove()


def mean_z(model: HookedLM, prompts: list[Prompt], batch_size: int = 8) -> torch.Tensor:
    """Each head's z averaged over every real token position of the prompts: [L, H, d_head]
    (the reference activation of mean ablation)."""
    total = torch.zeros(model.n_layers, model.n_heads, model.d_head, dtype=torch.float64)
    count = 0
    with capture_z(model) as grabbed:
        for s in range(0, len(prompts), batch_size):
            ps = prompts[s:s + batch_size]
            batch = left_pad([p.input_ids for p in ps], model.pad_id)
            model.run(batch, want=("logits",))
            m = batch.attention_mask.bool()
            for l in range(model.n_layers):
                z = grabbed[l].view(*m.shape, model.n_heads, model.d_head)
                total[l] += z[m.to(z.device)].double().sum(0).cpu()
            count += int(m.sum())
    return (total / count).float()


def steer(layer: int, vector: torch.Tensor, position: int = -1) -> ResidAdd:
    return ResidAdd(layer, vector, positions=(position,))
