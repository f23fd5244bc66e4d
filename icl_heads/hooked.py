"""One interface over a Hugging Face decoder: per-head outputs, attention rows,
residual stream and logits at the final position, plus the interventions the
papers use (head ablation, head patching, residual-stream addition).

Plain PyTorch forward hooks on the Hugging Face modules are used rather than a
wrapper model: they add no copy of the weights and keep the model's own fused
kernels (see benchmarks/bench_spine.py for the measured overhead).

Vocabulary follows TransformerLens: `z` is the per-head attention output before
W_O (`blocks.{l}.attn.hook_z`), `resid_pre[l]` is the input of block l and
`resid_pre[L]` the input of the final norm.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import torch
from torch import nn

from .errors import ConfigError


@dataclass
class Batch:
    """Left-padded token ids: the final prompt position is index -1 for every row."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor

    @property
    def offsets(self) -> torch.Tensor:
        """Number of pad tokens before each row's first real token."""
        return (self.attention_mask == 0).sum(-1)

    @property
    def position_ids(self) -> torch.Tensor:
        return (self.attention_mask.cumsum(-1) - 1).clamp(min=0)


def left_pad(token_lists: Sequence[Sequence[int]], pad_id: int) -> Batch:
    width = max(len(t) for t in token_lists)
    ids = torch.full((len(token_lists), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(token_lists), width), dtype=torch.long)
    for i, toks in enumerate(token_lists):
        if len(toks):
            ids[i, width - len(toks):] = torch.as_tensor(list(toks), dtype=torch.long)
            mask[i, width - len(toks):] = 1
    return Batch(ids, mask)


# --------------------------------------------------------------------------
# Interventions
# --------------------------------------------------------------------------
@dataclass
class HeadAblation:
    """Replace the z of the given heads at every position.

    mode "zero": z = 0 (the head writes nothing); "mean": z = means[l, k]
    (a [L, H, d_head] tensor of the head's mean z over a reference set);
    "replace": z = values[l, k] per batch row ([B, L, H, d_head] or [L, H, d_head]).
    """

    heads: Sequence[tuple[int, int]]
    mode: str = "zero"
    means: torch.Tensor | None = None

    def __post_init__(self):
        if self.mode not in ("zero", "mean", "replace"):
            raise ConfigError(f"ablation mode {self.mode!r} is not one of zero, mean, replace")
        if self.mode in ("mean", "replace") and self.means is None:
            raise ConfigError(f"{self.mode} ablation needs the reference activations (means=...)")


@dataclass
class HeadPatch:
    """Set head (layer, head)'s z at one position (default: the final one) to `value`
    ([d_head] for every row, or [B, d_head])."""

    layer: int
    head: int
    value: torch.Tensor
    position: int = -1


@dataclass
class RowHeadPatch:
    """Row r of the batch gets head heads[r] = (layer, head) set to values[r] at `position`
    (one head per row: every head's patch of one prompt runs as one batch)."""

    heads: Sequence[tuple[int, int]]
    values: torch.Tensor
    position: int = -1


@dataclass
class ResidAdd:
    """Add `vector` ([d_model] or [B, d_model]) to resid_pre of `layer` at `positions`
    (negative = counted from the final position, which is the same index in every
    row thanks to left padding)."""

    layer: int
    vector: torch.Tensor
    positions: Sequence[int] = (-1,)


@dataclass
class RunOutput:
    logits: torch.Tensor | None = None          # [B, V] final position
    head_out: torch.Tensor | None = None        # [B, L, H, d_model] residual-space head outputs at N
    z: torch.Tensor | None = None               # [B, L, H, d_head] at N
    attn: torch.Tensor | None = None            # [B, L, H, T] attention from N (left padded)
    resid: torch.Tensor | None = None           # [B, L+1, d_model] resid_pre per layer + final
    extras: dict = field(default_factory=dict)


class HookedLM:
    """A causal LM from transformers with head-level reads and interventions."""

    def __init__(self, model: nn.Module, tokenizer, name: str = "model", meta: dict | None = None):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.name = name
        self.meta = meta or {}
        cfg = model.config
        self.cfg = cfg
        self.n_layers = cfg.num_hidden_layers
        self.n_heads = cfg.num_attention_heads
        self.d_model = cfg.hidden_size
        self.d_head = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        self.layers = self._find_layers()
        self.final_norm = self._base().norm
        self.family = cfg.model_type
        # Gemma-style blocks normalise the attention output before adding it to the stream.
        self.post_attn_norm = [getattr(l, "post_attention_layernorm", None) if self._has_sandwich_norm(l) else None
                               for l in self.layers]
        for layer in self.layers:
            o = layer.self_attn.o_proj
            if getattr(o, "bias", None) is not None:
                raise ConfigError("attention output projections with a bias are not supported: the bias belongs to no head")
        self._interventions: list = []
        self._install_hooks()

    # ---------------------------------------------------------------- structure
    def _base(self):
        return self.model.model if hasattr(self.model, "model") else self.model

    def _find_layers(self):
        base = self._base()
        if not hasattr(base, "layers"):
            raise ConfigError(f"model {type(self.model).__name__} has no .model.layers: only decoder-only "
                              "Llama/Gemma/Qwen/Mistral-style models are supported")
        return list(base.layers)

    @staticmethod
    def _has_sandwich_norm(layer) -> bool:
        return hasattr(layer, "pre_feedforward_layernorm") and hasattr(layer, "post_attention_layernorm")

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def pad_id(self) -> int:
        tok = self.tokenizer
        for cand in (tok.pad_token_id, tok.eos_token_id, 0):
            if cand is not None:
                return int(cand)
        return 0

    @property
    def W_O(self) -> list[torch.Tensor]:
        """Per layer [H, d_head, d_model]: z_k @ W_O[l][k] is head k's (pre-norm) output."""
        out = []
        for layer in self.layers:
            w = layer.self_attn.o_proj.weight  # [d_model, H*d_head]
            out.append(w.T.reshape(self.n_heads, self.d_head, self.d_model))
        return out

    def final_norm_gain(self) -> torch.Tensor:
        w = self.final_norm.weight.detach()
        return (1.0 + w) if self._norm_is_offset(self.final_norm) else w

    @staticmethod
    def _norm_is_offset(norm: nn.Module) -> bool:
        # Gemma's RMSNorm stores weight-1 and multiplies by (1 + weight).
        return "Gemma" in type(norm).__name__

    def unembed(self) -> torch.Tensor:
        """Effective unembedding [V, d_model]: lm_head with the final-norm gain folded in
        (the norm's 1/rms scale is a positive per-prompt factor and is left out)."""
        W = self.model.get_output_embeddings().weight.detach()
        return (W * self.final_norm_gain()[None, :]).cpu()

    # ---------------------------------------------------------------- hooks
    def _install_hooks(self):
        self._capture: dict | None = None
        for l, layer in enumerate(self.layers):
            layer.register_forward_pre_hook(self._make_resid_hook(l), with_kwargs=True)
            layer.self_attn.o_proj.register_forward_pre_hook(self._make_z_hook(l))
            layer.self_attn.o_proj.register_forward_hook(self._make_o_hook(l))
            layer.self_attn.register_forward_hook(self._make_attn_hook(l))
        self.final_norm.register_forward_pre_hook(self._final_hook)

    def _make_resid_hook(self, l):
        def hook(module, args, kwargs):
            hs = args[0] if args else kwargs["hidden_states"]
            adds = [iv for iv in self._interventions if isinstance(iv, ResidAdd) and iv.layer == l]
            if adds:
                hs = hs.clone()
                for iv in adds:
                    vec = iv.vector.to(hs.device, hs.dtype)
                    for p in iv.positions:
                        hs[:, p, :] = hs[:, p, :] + vec
                if args:
                    args = (hs,) + tuple(args[1:])
                else:
                    kwargs = dict(kwargs, hidden_states=hs)
            cap = self._capture
            if cap is not None and "resid" in cap["want"]:
                cap["resid"][l] = hs[:, -1, :].detach()
            if adds:
                return args, kwargs
            return None
        return hook

    def _final_hook(self, module, args):
        cap = self._capture
        if cap is not None and "resid" in cap["want"]:
            cap["resid"][self.n_layers] = args[0][:, -1, :].detach()

    def _make_z_hook(self, l):
        def hook(module, args):
            z = args[0]
            ivs = [iv for iv in self._interventions
                   if (isinstance(iv, HeadAblation) and any(h[0] == l for h in iv.heads))
                   or (isinstance(iv, HeadPatch) and iv.layer == l)
                   or (isinstance(iv, RowHeadPatch) and any(h[0] == l for h in iv.heads))]
            if ivs:
                B, T, _ = z.shape
                z = z.clone().view(B, T, self.n_heads, self.d_head)
                for iv in ivs:
                    if isinstance(iv, HeadAblation):
                        for (ll, k) in iv.heads:
                            if ll != l:
                                continue
                            if iv.mode == "zero":
                                z[:, :, k, :] = 0.0
                            elif iv.mode == "mean":
                                z[:, :, k, :] = iv.means[l, k].to(z.device, z.dtype)
                            else:
                                vals = iv.means
                                v = vals[:, l, k] if vals.dim() == 4 else vals[l, k]
                                z[:, :, k, :] = (v[:, None, :] if v.dim() == 2 else v).to(z.device, z.dtype)
                    elif isinstance(iv, RowHeadPatch):
                        rows = [r for r, (ll, _) in enumerate(iv.heads) if ll == l]
                        heads = [iv.heads[r][1] for r in rows]
                        z[rows, iv.position, heads, :] = iv.values[rows].to(z.device, z.dtype)
                    else:
                        v = iv.value.to(z.device, z.dtype)
                        z[:, iv.position, iv.head, :] = v
                z = z.view(B, T, self.n_heads * self.d_head)
            cap = self._capture
            if cap is not None and ("heads" in cap["want"] or "z" in cap["want"]):
                cap["z"][l] = z[:, -1, :].detach().view(-1, self.n_heads, self.d_head)
            if ivs:
                return (z,) + tuple(args[1:])
            return None
        return hook

    def _make_o_hook(self, l):
        def hook(module, args, output):
            cap = self._capture
            if cap is not None and "heads" in cap["want"]:
                cap["o"][l] = output[:, -1, :].detach()
        return hook

    def _make_attn_hook(self, l):
        def hook(module, args, output):
            cap = self._capture
            if cap is not None and ("attn" in cap["want"] or "attn_full" in cap["want"]):
                weights = output[1] if isinstance(output, tuple) and len(output) > 1 else None
                if weights is None:
                    raise RuntimeError("attention weights were not returned: load the model with "
                                       "attn_implementation='eager' to read attention patterns")
                if "attn_full" in cap["want"]:
                    cap["attn_full"][l] = weights.detach()
                cap["attn"][l] = weights[:, :, -1, :].detach()
        return hook

    # ---------------------------------------------------------------- running
    @contextlib.contextmanager
    def interventions(self, *ivs):
        old = self._interventions
        self._interventions = old + [iv for iv in ivs if iv is not None]
        try:
            yield self
        finally:
            self._interventions = old

    def head_outputs_from(self, z: torch.Tensor, o: torch.Tensor | None) -> torch.Tensor:
        """[B, L, H, d_head] z at N -> [B, L, H, d_model] residual-space head outputs.

        Where a norm sits between the heads and the stream (Gemma), it is linearised
        with its scale frozen at this forward pass, so the heads of a layer sum
        exactly to the block's attention update."""
        outs = []
        for l, W in enumerate(self.W_O):
            a = torch.einsum("bhd,hdm->bhm", z[:, l].to(W.dtype), W.detach())
            norm = self.post_attn_norm[l]
            if norm is not None:
                o_l = o[:, l] if o is not None else a.sum(1)
                scale = torch.rsqrt(o_l.float().pow(2).mean(-1, keepdim=True) + norm.eps)
                gain = (1.0 + norm.weight.float()) if self._norm_is_offset(norm) else norm.weight.float()
                a = (a.float() * scale[:, None, :] * gain[None, None, :]).to(W.dtype)
            outs.append(a)
        return torch.stack(outs, 1)

    @torch.no_grad()
    def run(self, batch: Batch, want: Iterable[str] = ("logits",), ivs: Sequence = ()) -> RunOutput:
        want = set(want)
        unknown = want - {"logits", "heads", "z", "attn", "attn_full", "resid"}
        if unknown:
            raise ValueError(f"unknown outputs requested: {sorted(unknown)}")
        L = self.n_layers
        self._capture = {"want": want, "z": [None] * L, "o": [None] * L, "attn": [None] * L,
                         "attn_full": [None] * L, "resid": [None] * (L + 1)}
        try:
            dev = self.device
            with self.interventions(*ivs):
                out = self.model(input_ids=batch.input_ids.to(dev), attention_mask=batch.attention_mask.to(dev),
                                 position_ids=batch.position_ids.to(dev), use_cache=False, logits_to_keep=1)
            cap = self._capture
        finally:
            self._capture = None
        # Results come back on the CPU, whatever device the model runs on.
        res = RunOutput()
        if "logits" in want:
            res.logits = out.logits[:, -1, :].float().cpu()
        if "heads" in want or "z" in want:
            z = torch.stack(cap["z"], 1)
            if "heads" in want:
                res.head_out = self.head_outputs_from(z, torch.stack(cap["o"], 1)).cpu()
            res.z = z.cpu()
        if "attn" in want:
            res.attn = torch.stack(cap["attn"], 1).cpu()
        if "attn_full" in want:
            res.extras["attn_full"] = torch.stack(cap["attn_full"], 1).cpu()
        if "resid" in want:
            res.resid = torch.stack(cap["resid"], 1).cpu()
        return res

    @torch.no_grad()
    def step(self, input_ids: torch.Tensor, past_key_values=None, ivs: Sequence = (), use_cache: bool = True):
        """A raw forward over unpadded rows, optionally continuing a key/value cache; returns
        (final-position logits on the CPU, the cache)."""
        dev = self.device
        with self.interventions(*ivs):
            kw = {"cache": past_key_values} if past_key_values is not None else {}
            out = self.model(input_ids=input_ids.to(dev), use_cache=use_cache, logits_to_keep=1, **kw)
        return out.logits[:, -1, :].float().cpu(), out.get("cache")

    def logits_with_grad(self, batch: Batch, ivs: Sequence = ()) -> torch.Tensor:
        """Final-position logits with autograd on (for training vectors / saliency)."""
        dev = self.device
        with self.interventions(*ivs):
            out = self.model(input_ids=batch.input_ids.to(dev), attention_mask=batch.attention_mask.to(dev),
                             position_ids=batch.position_ids.to(dev), use_cache=False, logits_to_keep=1)
        return out.logits[:, -1, :]

    # ---------------------------------------------------------------- tokens
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return self.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"]

    def first_token(self, word: str) -> int:
        ids = self.encode(word, add_special_tokens=False)
        if not ids:
            raise ConfigError(f"label {word!r} tokenises to nothing")
        return ids[0]
