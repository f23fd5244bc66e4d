"""Interventions as values. Each names the hook points it acts on (TransformerLens names) and
has one `apply(point, x, run)` that returns the new activation there; `HookedModel.run`
calls it at those points, in the order of the forward pass. `run` gives access to the
model's shape (`run.n_heads`, `run.d_head`), its norms (`run.norm_scale`) and a per-pass
`run.state` dict in which an intervention may keep what it read at an earlier point.

Positions: a negative position counts from the final column, which is the same index in
every row of a left-padded batch (and stays right when the pass continues a key/value
prefix, since only the columns after the prefix are in x).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import torch

from ..errors import ConfigError


def z_point(l: int) -> str:
    return f"blocks.{l}.attn.hook_z"


def resid_point(l: int) -> str:
    return f"blocks.{l}.hook_resid_pre"


def _layer_of(point: str) -> int:
    return int(point.split(".")[1])


class Intervention:
    """Base: `points(n_layers)` lists where it acts, `apply` changes the activation there."""

    def points(self, n_layers: int) -> list[str]:
        raise NotImplementedError

    def apply(self, point: str, x: torch.Tensor, run) -> torch.Tensor:
        raise NotImplementedError

    def first_layer(self, n_layers: int) -> int:
        """The earliest block whose computation this changes (blocks before it run as clean)."""
        return min([_layer_of(p) for p in self.points(n_layers)] + [n_layers])


def _heads_view(x, run):
    B, T, _ = x.shape
    return x.clone().view(B, T, run.n_heads, run.d_head)


def _flat(z):
    B, T = z.shape[:2]
    return z.view(B, T, -1)


ABLATION_NORMS = ("frozen", "live")
# What each choice means, for provenance records (config key interventions.post_attention_norm).
ABLATION_NORM_TEXT = {
    "frozen": "head ablation in residual space: a norm between W_O and the stream (Gemma 2/3, OLMo 2) keeps its scale "
              "from the layer's unablated output, so only the ablated heads' contributions change (no such norm: plain z "
              "ablation)",
    "live": "z ablation before W_O; a norm between W_O and the stream (Gemma 2/3, OLMo 2) renormalises the ablated output"}


@dataclass
class HeadAblation(Intervention):
    """Replace the z of the given heads at every position.

    mode "zero": z = 0 (the head writes nothing); "mean": z = means[l, k] (a [L, H, d_head]
    tensor of the head's mean z over a reference set); "replace": z = means[l, k] per batch row
    ([B, L, H, d_head] or [L, H, d_head]).

    norm: where a norm sits between W_O and the residual stream (Gemma 2/3, OLMo 2), "frozen"
    (the default) defines the ablation in residual space: that norm's scale stays what it is
    on the layer's unablated attention output of this pass (in a one-layer ablation: the clean
    pass's scale), so the head's residual-space contribution (the head outputs of `run`'s
    "heads") is removed or replaced and every other head of the layer is left as it was.
    "live" lets the norm renormalise the ablated output, which scales the surviving heads up
    (by a median 1.23x on Gemma 3 270M). Families without such a norm: both are the same."""

    heads: Sequence[tuple[int, int]]
    mode: str = "zero"
    means: torch.Tensor | None = None
    norm: str = "frozen"

    def __post_init__(self):
        if self.mode not in ("zero", "mean", "replace"):
            raise ConfigError(f"ablation mode {self.mode!r} is not one of zero, mean, replace")
        if self.mode in ("mean", "replace") and self.means is None:
            raise ConfigError(f"{self.mode} ablation needs the reference activations (means=...)")
        if self.norm not in ABLATION_NORMS:
            raise ConfigError(f"ablation norm {self.norm!r} is not one of {', '.join(ABLATION_NORMS)} "
                              "(config key interventions.post_attention_norm)")

    def points(self, n_layers):
        layers = sorted({l for l, _ in self.heads})
        out = [z_point(l) for l in layers]
        if self.norm == "frozen":
            out += [f"blocks.{l}.hook_attn_out" for l in layers]
        return out

    def apply(self, point, x, run):
        l = _layer_of(point)
        if point.endswith("hook_attn_out"):   # the post-attention norm's output: rescale to the frozen scale
            ratio = run.state.pop(("frozen_norm", id(self), l), None)
            return x if ratio is None else (x.float() * ratio).to(x.dtype)
        z = _heads_view(x, run)
        for ll, k in self.heads:
            if ll != l:
                continue
            if self.mode == "zero":
                z[:, :, k, :] = 0.0
            elif self.mode == "mean":
                z[:, :, k, :] = self.means[l, k].to(z.device, z.dtype)
            else:
                v = self.means[:, l, k] if self.means.dim() == 4 else self.means[l, k]
                z[:, :, k, :] = (v[:, None, :] if v.dim() == 2 else v).to(z.device, z.dtype)
        z = _flat(z)
        norm = run.post_attn_norm(l)
        if self.norm == "frozen" and norm is not None:
            # the norm multiplies its input by s(.); keep s at the unablated output's value
            before, after = run.attn_proj(l, x).float(), run.attn_proj(l, z).float()
            run.state[("frozen_norm", id(self), l)] = run.norm_scale_of(norm, before) / run.norm_scale_of(norm, after)
        return z


@dataclass
class HeadPatch(Intervention):
    """Set head (layer, head)'s z at one position (default: the final one) to `value`
    ([d_head] for every row, or [B, d_head])."""

    layer: int
    head: int
    value: torch.Tensor
    position: int = -1

    def points(self, n_layers):
        return [z_point(self.layer)]

    def apply(self, point, x, run):
        z = _heads_view(x, run)
        z[:, self.position, self.head, :] = self.value.to(z.device, z.dtype)
        return _flat(z)


@dataclass
class RowHeadPatch(Intervention):
    """Row first_row + r of the batch gets head heads[r] = (layer, head) set to values[r] at
    `position` (one head per row: every head's patch of one prompt runs as one batch; rows
    before first_row are left as they are)."""

    heads: Sequence[tuple[int, int]]
    values: torch.Tensor
    position: int = -1
    first_row: int = 0

    def points(self, n_layers):
        return [z_point(l) for l in sorted({l for l, _ in self.heads})]

    def apply(self, point, x, run):
        l = _layer_of(point)
        rows = [r for r, (ll, _) in enumerate(self.heads) if ll == l]
        heads = [self.heads[r][1] for r in rows]
        z = _heads_view(x, run)
        z[[self.first_row + r for r in rows], self.position, heads, :] = self.values[rows].to(z.device, z.dtype)
        return _flat(z)


@dataclass
class AddAt(Intervention):
    """Add to the activation at a residual-width hook point (`hook_resid_pre`, `hook_mlp_in`,
    `hook_attn_in`, `attn.o.hook_out`, ...).

    Either `vector` ([d] or [B, d]) at every column of `positions`, or per-entry `values`
    ([B, P, d]) at explicit columns `cols` ([B, P], into the columns this pass computes);
    differentiable in vector / values."""

    point: str
    vector: torch.Tensor | None = None
    positions: Sequence[int] = (-1,)
    values: torch.Tensor | None = None
    cols: torch.Tensor | None = None

    def points(self, n_layers):
        return [self.point]

    def first_column(self, batch) -> int:
        """The earliest column this changes (for `evaluate(share="columns")`: the columns before
        it run once into a shared key/value prefix). Negative positions count from the end."""
        T = batch.input_ids.shape[1]
        if self.cols is not None or any(p >= 0 for p in self.positions):
            return 0   # explicit / absolute columns index the full prompt: no shared prefix
        return T + min(self.positions)

    def apply(self, point, x, run):
        if self.cols is not None:
            rows = torch.arange(self.cols.shape[0], device=x.device)[:, None].expand_as(self.cols)
            return x.index_put((rows, self.cols.to(x.device)), self.values.to(x.device, x.dtype), accumulate=True)
        x = x.clone()
        vec = self.vector.to(x.device, x.dtype)
        for p in self.positions:
            x[:, p, :] = x[:, p, :] + vec
        return x


def ResidAdd(layer: int, vector: torch.Tensor, positions: Sequence[int] = (-1,)) -> AddAt:
    """Add `vector` ([d_model] or [B, d_model]) to resid_pre of `layer` at `positions`."""
    return AddAt(resid_point(layer), vector, tuple(positions))


@dataclass
class ZGrad(Intervention):
    """Reads the gradient at z: adds a zero `delta[l]` ([B, H * d_head], requires grad) to z at
    the final position of every layer and keeps z there (`z[l]`), so that d(out)/d(delta) is
    d(out)/dz at N (what first-order head saliency needs; run with grad=True)."""

    deltas: dict = field(default_factory=dict)
    z: dict = field(default_factory=dict)

    def points(self, n_layers):
        return [z_point(l) for l in range(n_layers)]

    def apply(self, point, x, run):
        l = _layer_of(point)
        d = torch.zeros_like(x[:, -1]).requires_grad_(True)
        self.deltas[l], self.z[l] = d, x[:, -1].detach()
        return torch.cat([x[:, :-1], (x[:, -1] + d)[:, None]], 1)


@dataclass
class OVReinjection(Intervention):
    """At N of every layer l >= first_layer, the attention output (W_O's output, before any
    post-attention norm) gains terms[l] * s_l, s_l = the scale the layer's input norm applies
    to resid_pre at N (1 / rms; 1 where attention reads the raw stream). attention="one":
    terms [L, d]; "actual": terms [L, H, d], each head's term weighted by its attention of N
    on itself in this pass (needs eager attention)."""

    terms: torch.Tensor
    first: int
    attention: str = "one"

    def points(self, n_layers):
        kinds = ["hook_resid_pre", "attn.o.hook_out"] + (["attn.hook_pattern"] if self.attention == "actual" else [])
        return [f"blocks.{l}.{k}" for l in range(self.first, n_layers) for k in kinds]

    def first_layer(self, n_layers):
        return self.first

    def apply(self, point, x, run):
        l = _layer_of(point)
        if point.endswith("hook_resid_pre"):
            run.state[("ov_scale", l)] = run.norm_scale(l, "attn", x[:, -1].float())
            return x
        if point.endswith("hook_pattern"):
            run.state[("ov_c", l)] = x[:, :, -1, -1].float()           # [B, H]
            return x
        scale = run.state[("ov_scale", l)]
        if self.attention == "actual":
            add = scale * torch.einsum("bh,hd->bd", run.state[("ov_c", l)], self.terms[l].to(x.device))
        else:
            add = scale * self.terms[l].to(x.device)[None]
        x = x.clone()
        x[:, -1] = x[:, -1] + add.to(x.dtype)
        return x


def first_touched_layer(ivs, n_layers: int) -> int:
    """The earliest block whose computation any of `ivs` changes."""
    return min([iv.first_layer(n_layers) for iv in ivs] + [n_layers])
