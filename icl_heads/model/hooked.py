"""HookedModel: one interface over a Hugging Face decoder of any supported family, in
TransformerLens's vocabulary. The only code of the project that registers hooks on, or calls
into, a Hugging Face module.

Hook points (per block l): `blocks.{l}.hook_resid_pre`, `blocks.{l}.hook_attn_in` (before the
attention norm), `blocks.{l}.attn.hook_z` ([B, T, H * d_head], before W_O),
`blocks.{l}.attn.hook_pattern` ([B, H, T, S]), `blocks.{l}.attn.o.hook_out` (W_O z + b_O),
`blocks.{l}.hook_attn_out` (what attention adds to the stream: after Gemma's / OLMo's
post-attention norm), `blocks.{l}.hook_mlp_in` (before the MLP norm), `blocks.{l}.hook_mlp_out`,
`blocks.{l}.hook_resid_post`; and `ln_final.hook_normalized`.

Plain PyTorch hooks on the Hugging Face modules are used rather than a wrapper model: they
add no copy of the weights and keep the model's own kernels and key/value cache. Hooks are
registered for one pass, only at the points that pass reads or changes.
"""
from __future__ import annotations

import contextlib
import copy
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from transformers.cache_utils import DynamicLayer

from ..errors import ConfigError
from .adapters import Adapter, adapter_for, describe, get


@dataclass
class Batch:
    """Token ids, left padded: the final prompt position is index -1 for every row.
    attention_mask None: unpadded rows, run without a mask or position ids."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor | None = None

    @property
    def offsets(self) -> torch.Tensor:
        """Number of pad tokens before each row's first real token."""
        if self.attention_mask is None:
            return torch.zeros(self.input_ids.shape[0], dtype=torch.long)
        return (self.attention_mask == 0).sum(-1)

    @property
    def position_ids(self) -> torch.Tensor:
        return (self.attention_mask.cumsum(-1) - 1).clamp(min=0)

    def repeat_interleave(self, k: int) -> "Batch":
        return Batch(self.input_ids.repeat_interleave(k, 0),
                     None if self.attention_mask is None else self.attention_mask.repeat_interleave(k, 0))


def left_pad(token_lists: Sequence[Sequence[int]], pad_id: int) -> Batch:
    width = max(len(t) for t in token_lists)
    ids = torch.full((len(token_lists), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(token_lists), width), dtype=torch.long)
    for i, toks in enumerate(token_lists):
        if len(toks):
            ids[i, width - len(toks):] = torch.as_tensor(list(toks), dtype=torch.long)
            mask[i, width - len(toks):] = 1
    return Batch(ids, mask)


@dataclass
class Prefix:
    """The key/value cache of columns < start of a batch (reused by `run(..., prefix=)`)."""

    cache: object
    start: int

    def repeat_interleave(self, k: int) -> "Prefix":
        """Each row k times (new tensors; this prefix is left as it is)."""
        return Prefix(_fork(self.cache, k), self.start)

    def fork(self) -> "Prefix":
        """A copy for one continuation that shares this prefix's tensors."""
        return Prefix(_fork(self.cache), self.start)


def _fork(cache, k: int | None = None):
    """A new cache object over the same tensors (each row repeated k times when k is given). Dynamic cache layers grow by concatenation into new tensors,
    so a pass over the fork leaves the original's tensors as they were; a cache of any other
    kind (one that may write in place) is deep-copied."""
    layers = getattr(cache, "layers", None)
    if layers is None or any(not isinstance(layer, DynamicLayer) for layer in layers):
        cache = copy.deepcopy(cache)
        if k is not None:
            cache.batch_repeat_interleave(k)
        return cache
    new = copy.copy(cache)
    new.layers = []
    for layer in layers:
        c = copy.copy(layer)
        if k is not None and c.is_initialized and c.keys is not None and c.keys.numel():
            c.keys, c.values = c.keys.repeat_interleave(k, 0), c.values.repeat_interleave(k, 0)
        new.layers.append(c)
    return new


@dataclass
class RunOutput:
    logits: torch.Tensor | None = None          # [B, V] final position (or [B, K, V] with keep=K > 1)
    head_out: torch.Tensor | None = None        # [B, L, H, d_model] residual-space head outputs at N
    bias_out: torch.Tensor | None = None        # [B, L, d_model] what b_O adds at N (in the same space)
    z: torch.Tensor | None = None               # [B, L, H, d_head] at N
    attn: torch.Tensor | None = None            # [B, L, H, T] attention from N (left padded)
    resid: torch.Tensor | None = None           # [B, L+1, d_model] resid_pre per layer + final (input of ln_final)
    cache: object = None                        # the key/value cache, when asked for
    hooks: dict = field(default_factory=dict)   # reads by hook name
    extras: dict = field(default_factory=dict)


WANTS = {"logits", "heads", "z", "attn", "attn_full", "resid", "block_out", "cache"}


_WIDTH = {"last": 0, "last_row": 1, "all": 2}   # what a capture keeps: column -1, a pattern's row -1, everything


def _branch_action(f, x):
    """Hook action f of a branches pass: f sees the pass's [B, k, ...] as B * k rows [B * k, 1, ...]
    (a view where x is contiguous), and its result (or the view, which f may have changed in
    place) goes back as [B, k, ...]."""
    v = x.reshape(x.shape[0] * x.shape[1], 1, *x.shape[2:])
    y = f(v)
    return (v if y is None else y).reshape(x.shape)


def _narrow(v, k: int, m: int):
    """A block argument of a branches pass with k columns, cut to its first m columns: a 4-D
    additive mask [B, 1, k, n + k] to [B, 1, m, n + m] (the prefix's n columns and the first m
    branches), a per-column tensor [B, k, ...] (position ids, rotary cos / sin) to [B, m, ...],
    a [k] one to [m]; tuples, lists and dicts element by element; anything else as it is."""
    if torch.is_tensor(v):
        if v.dim() == 4 and v.shape[1] == 1 and v.shape[-2] == k and v.shape[-1] > k:
            return v[:, :, :m, : v.shape[-1] - k + m]
        if v.dim() >= 2 and v.shape[1] == k:
            return v[:, :m]
        if v.dim() == 1 and v.shape[0] == k:
            return v[:m]
        return v
    if isinstance(v, (tuple, list)):
        return type(v)(_narrow(x, k, m) for x in v)
    if isinstance(v, dict):
        return {key: _narrow(x, k, m) for key, x in v.items()}
    return v


class _Grow(nn.Module):
    """Stands in for block l of a branches pass of k columns that runs only the first m of them
    (`run(grow=...)`): the columns the block below did not run join as copies of column 0,
    the arguments are cut to m columns (`_narrow`), and the block's output has m columns."""

    def __init__(self, block: nn.Module, k: int, m: int):
        super().__init__()
        self.block, self.k, self.m = block, k, m

    def forward(self, hidden_states, *args, **kwargs):
        x, m = hidden_states, self.m
        if x.shape[1] > m:
            x = x[:, :m]
        elif x.shape[1] < m:
            x = torch.cat([x, x[:, :1].expand(-1, m - x.shape[1], -1)], 1)
        if m < self.k:
            args = tuple(_narrow(a, self.k, m) for a in args)
            kwargs = {key: _narrow(v, self.k, m) for key, v in kwargs.items()}
        return self.block(x, *args, **kwargs)


class _Replay(nn.Module):
    """Stands in for a block whose output is already known (it returns it as is)."""

    def __init__(self, output: torch.Tensor):
        super().__init__()
        self.output = output

    def forward(self, hidden_states=None, *args, **kwargs):
        return self.output


class _Pass:
    """What an intervention sees of the current pass."""

    def __init__(self, model: "HookedModel"):
        self.n_heads, self.d_head, self.state = model.n_heads, model.d_head, {}
        self._model = model

    def norm_scale(self, l: int, which: str, x: torch.Tensor) -> torch.Tensor:
        return self._model.norm_scale(self._model.norm_of(l, which), x)

    def norm_scale_of(self, norm, x: torch.Tensor) -> torch.Tensor:
        return self._model.norm_scale(norm, x)

    def post_attn_norm(self, l: int):
        """The norm between layer l's W_O and the stream (Gemma 2/3, OLMo 2), or None."""
        return self._model.post_attn_norm[l]

    def attn_proj(self, l: int, z: torch.Tensor) -> torch.Tensor:
        """W_O (+ b_O) of layer l applied to z ([..., H * d_head]) without running its hooks."""
        return self._model.attn_proj(l, z)


class HookedModel:
    """A causal LM from transformers with head-level reads and interventions."""

    def __init__(self, model: nn.Module, tokenizer, name: str = "model", meta: dict | None = None):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.name = name
        self.meta = meta or {}
        cfg = model.config
        self.cfg = cfg
        self.adapter: Adapter = adapter_for(cfg)
        self.family = self.adapter.family
        self.n_layers = cfg.num_hidden_layers
        self.n_heads = cfg.num_attention_heads
        self.n_kv_heads = getattr(cfg, "num_key_value_heads", None) or self.n_heads
        self.d_model = cfg.hidden_size
        self.d_head = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        self._blocks = get(model, self.adapter.blocks)
        self.layers = list(self._blocks)
        self.final_norm = get(model, self.adapter.ln_final)
        ad = self.adapter
        self.post_attn_norm = [get(b, ad.ln_attn_post) for b in self.layers]

    # ---------------------------------------------------------------- structure
    def attn_module(self, l: int):
        return get(self.layers[l], self.adapter.attn)

    def o_proj(self, l: int):
        return get(self.layers[l], self.adapter.o_proj)

    def norm_of(self, l: int, which: str):
        """The norm before attention ("attn"), before the MLP ("mlp"), after attention
        ("attn_post") or after the MLP ("mlp_post") of block l; None where there is none."""
        ad = self.adapter
        path = {"attn": ad.ln_attn, "mlp": ad.ln_mlp, "attn_post": ad.ln_attn_post, "mlp_post": ad.ln_mlp_post}[which]
        return get(self.layers[l], path)

    def describe(self) -> dict:
        """The model layer's choices, for provenance."""
        return describe(self.adapter)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def dtype(self) -> torch.dtype:
        return next(self.model.parameters()).dtype

    @property
    def pad_id(self) -> int:
        tok = self.tokenizer
        for cand in (tok.pad_token_id, tok.eos_token_id, 0):
            if cand is not None:
                return int(cand)
        return 0

    def freeze(self):
        for p in self.model.parameters():
            p.requires_grad_(False)

    # ---------------------------------------------------------------- weights (TransformerLens shapes)
    def _qkv_weights(self, l: int):
        """(W [3 x [n_heads_of_kind, d_model, d_head]], b [3 x [n, d_head]]) for q, k, v, before
        repeating key/value heads over their query groups."""
        ad, H, Hkv, dh, d = self.adapter, self.n_heads, self.n_kv_heads, self.d_head, self.d_model
        attn = self.attn_module(l)

        def lin(w, b, n):  # nn.Linear weight [n * dh, d]
            W = w.detach().view(n, dh, d).transpose(1, 2)
            return W, (b.detach().view(n, dh) if b is not None else torch.zeros(n, dh, dtype=w.dtype, device=w.device))

        if ad.qkv == "separate":
            return [lin(getattr(attn, f"{x}_proj").weight, getattr(attn, f"{x}_proj").bias, n)
                    for x, n in (("q", H), ("k", Hkv), ("v", Hkv))]
        m = get(attn, ad.qkv_module)
        if ad.qkv == "gpt2":   # Conv1D weight [d, 3d]: columns q | k | v, head-major within each
            w, b = m.weight.detach(), m.bias.detach()
            return [(w[:, i * H * dh:(i + 1) * H * dh].reshape(d, H, dh).transpose(0, 1),
                     b[i * H * dh:(i + 1) * H * dh].view(H, dh)) for i in range(3)]
        if ad.qkv == "neox":   # rows laid out [H, (q, k, v), dh]
            w = m.weight.detach().view(H, 3, dh, d)
            b = m.bias.detach().view(H, 3, dh) if m.bias is not None else torch.zeros(H, 3, dh, dtype=w.dtype)
            return [(w[:, i].transpose(1, 2), b[:, i]) for i in range(3)]
        # phi3: rows q | k | v
        sizes = [H * dh, Hkv * dh, Hkv * dh]
        ws = m.weight.detach().split(sizes, 0)
        bs = m.bias.detach().split(sizes, 0) if m.bias is not None else [None] * 3
        return [lin(w, b, n) for w, b, n in zip(ws, bs, (H, Hkv, Hkv))]

    def weights(self, l: int) -> dict[str, torch.Tensor]:
        """Layer l's attention weights in TransformerLens shapes: W_Q, W_K, W_V [H, d_model, d_head]
        (key/value heads repeated over their query groups), b_Q, b_K, b_V [H, d_head],
        W_O [H, d_head, d_model], b_O [d_model] (zeros where the model has none). They act on the
        input norm's output; q/k norms (Qwen3, OLMo 2, Gemma 3) and rotary embeddings come after."""
        rep = self.n_heads // self.n_kv_heads
        (Wq, bq), (Wk, bk), (Wv, bv) = self._qkv_weights(l)
        out = {"W_Q": Wq, "b_Q": bq, "W_K": Wk.repeat_interleave(rep, 0), "b_K": bk.repeat_interleave(rep, 0),
               "W_V": Wv.repeat_interleave(rep, 0), "b_V": bv.repeat_interleave(rep, 0), "W_O": self.W_O[l]}
        o = self.o_proj(l)
        out["b_O"] = o.bias.detach() if getattr(o, "bias", None) is not None else torch.zeros(self.d_model, dtype=o.weight.dtype)
        return out

    @property
    def W_O(self) -> list[torch.Tensor]:
        """Per layer [H, d_head, d_model]: z_k @ W_O[l][k] is head k's (pre-norm) output."""
        out = []
        for l in range(self.n_layers):
            w = self.o_proj(l).weight
            w = w if self.adapter.o_conv1d else w.T          # -> [H * d_head, d_model]
            out.append(w.reshape(self.n_heads, self.d_head, self.d_model))
        return out

    def attn_proj(self, l: int, z: torch.Tensor) -> torch.Tensor:
        """Layer l's output projection (W_O z + b_O) as a function, bypassing the module's hooks."""
        o = self.o_proj(l)
        w = o.weight if self.adapter.o_conv1d else o.weight.T      # [H * d_head, d_model]
        y = z.to(w.dtype) @ w
        return y + o.bias if getattr(o, "bias", None) is not None else y

    def b_O(self, l: int) -> torch.Tensor | None:
        b = getattr(self.o_proj(l), "bias", None)
        return None if b is None else b.detach()

    # ---------------------------------------------------------------- norms
    @staticmethod
    def norm_eps(norm) -> float:
        return float(getattr(norm, "eps", None) or getattr(norm, "variance_epsilon", None) or 1e-6)

    def norm_gain(self, norm) -> torch.Tensor:
        w = norm.weight.detach().float()
        return (1.0 + w) if self.adapter.norm == "rms_offset" else w

    def norm_scale(self, norm, x: torch.Tensor) -> torch.Tensor:
        """[..., 1] the factor a norm multiplies its (centred) input by: 1 / rms, or 1 / std for
        LayerNorm; 1 where there is no norm."""
        if norm is None:
            return torch.ones_like(x[..., :1])
        if self.adapter.norm == "layernorm":
            return torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + self.norm_eps(norm))
        return torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.norm_eps(norm))

    def norm_linear(self, norm, x: torch.Tensor) -> torch.Tensor:
        """The norm's linear part at unit scale: gain * x (RMS) or gain * (x - mean x) (LayerNorm)."""
        if norm is None:
            return x
        if self.adapter.norm == "layernorm":
            x = x - x.mean(-1, keepdim=True)
        return self.norm_gain(norm).to(x.device) * x

    def final_norm_gain(self) -> torch.Tensor:
        return self.norm_gain(self.final_norm)

    def unembed(self) -> torch.Tensor:
        """Effective unembedding [V, d_model] (see adapters.UNEMBED_DEFINITION): logits at N are
        unembed() @ x * s + unembed_bias() (before Gemma's monotone soft cap), with x the input
        of the final norm and s its 1/rms (1/std) factor."""
        W = self.model.get_output_embeddings().weight.detach()
        U = W * self.final_norm_gain().to(W.dtype)[None, :]
        if self.adapter.norm == "layernorm":
            U = U - U.mean(-1, keepdim=True)
        return U.cpu()

    def unembed_bias(self) -> torch.Tensor:
        """[V] the logits' prompt-independent constant: W_U b_final_norm + b_U (0 for RMS models without b_U)."""
        head = self.model.get_output_embeddings()
        c = torch.zeros(head.weight.shape[0], dtype=torch.float32)
        b = getattr(self.final_norm, "bias", None)
        if b is not None:
            c += (head.weight.detach().float() @ b.detach().float()).cpu()
        if getattr(head, "bias", None) is not None:
            c += head.bias.detach().float().cpu()
        return c

    @torch.no_grad()
    def token_logprobs_from_resid(self, h: torch.Tensor, tokens, vocab_chunk: int = 4096) -> torch.Tensor:
        """[n] float64 log p(token) of final residual states h ([n, d], the input of the final
        norm): the logits of `logits_from_resid`, taken vocab_chunk tokens of the unembedding
        at a time (a [n, vocab_chunk] block stays in cache; on the default models this is about
        2x faster than one [n, V] product), each block's logsumexp in float64, combined in
        float64. tokens: one token id for every row, or [n] ids."""
        head = self.model.get_output_embeddings()
        if type(head) is not nn.Linear:   # an unembedding that is not a plain product: its own forward
            lg = self.logits_from_resid(h).double()
            tok = torch.as_tensor(tokens, dtype=torch.long).expand(lg.shape[0])
            return lg.gather(1, tok[:, None])[:, 0] - torch.logsumexp(lg, -1)
        x = self.final_norm(h.to(self.device, self.dtype)[:, None, :])[:, 0]
        W, bias = head.weight, getattr(head, "bias", None)
        n, V = x.shape[0], W.shape[0]
        tok = torch.as_tensor(tokens, dtype=torch.long, device=x.device).expand(n)
        picked = torch.zeros(n, dtype=torch.float64, device=x.device)
        parts = []
        for a in range(0, V, vocab_chunk):
            lg = self._softcap(F.linear(x, W[a:a + vocab_chunk], None if bias is None else bias[a:a + vocab_chunk]).float())
            lg = lg.double()
            parts.append(torch.logsumexp(lg, -1))
            inside = (tok >= a) & (tok < a + lg.shape[1])
            if inside.any():
                rows = inside.nonzero()[:, 0]
                picked[rows] = lg[rows, tok[rows] - a]
        return (picked - torch.logsumexp(torch.stack(parts, -1), -1)).cpu()

    @torch.no_grad()
    def logits_from_resid(self, h: torch.Tensor) -> torch.Tensor:
        """Logits of final residual states h ([n, d], the input of the final norm)."""
        x = self.final_norm(h.to(self.device, self.dtype)[:, None, :])
        return self._softcap(self.model.get_output_embeddings()(x)[:, 0].float()).cpu()

    def _softcap(self, logits: torch.Tensor) -> torch.Tensor:
        """The final logit soft cap, tanh(logits / cap) * cap, where the model has one (Gemma 2)."""
        cap = getattr(self.cfg, self.adapter.softcap_attr, None) if self.adapter.softcap_attr else None
        return torch.tanh(logits / cap) * cap if cap else logits

    # ---------------------------------------------------------------- hook points
    def _site(self, point: str):
        """(module, kind, order) of a TransformerLens hook point: kind "pre" hooks a module's
        input, "out" its output, "attn0"/"attn1" the attention module's output / pattern."""
        if point == "ln_final.hook_normalized":
            return self.final_norm, "out", 0
        parts = point.split(".")
        if parts[0] != "blocks" or len(parts) < 3 or not parts[1].isdigit() or int(parts[1]) >= self.n_layers:
            raise ValueError(f"unknown hook point {point!r}")
        l, name = int(parts[1]), ".".join(parts[2:])
        blk, ad = self.layers[l], self.adapter
        attn = self.attn_module(l)
        table = {
            "hook_resid_pre": (blk, "pre", 0),
            "hook_attn_in": (get(blk, ad.ln_attn), "pre", 0) if ad.ln_attn else (attn, "pre", 0),
            "attn.hook_z": (self.o_proj(l), "pre", 0),
            "attn.hook_pattern": (attn, "attn1", 0),
            "attn.o.hook_out": (attn, "attn0", 1),
            "hook_attn_out": (get(blk, ad.ln_attn_post), "out", 0) if ad.ln_attn_post else (attn, "attn0", 2),
            "hook_mlp_in": (get(blk, ad.ln_mlp), "pre", 0) if ad.ln_mlp else (get(blk, ad.mlp), "pre", 0),
            "hook_mlp_out": (get(blk, ad.ln_mlp_post), "out", 0) if ad.ln_mlp_post else (get(blk, ad.mlp), "out", 0),
            "hook_resid_post": (blk, "out", 0),
        }
        if name not in table:
            raise ValueError(f"unknown hook point {point!r}; known: {', '.join(sorted(table))} and ln_final.hook_normalized")
        return table[name]

    def _install(self, actions: dict[str, list]):
        """Register one HF hook per module for the points in `actions` (point -> list of
        callables f(x) -> x or None). Returns the handles."""
        groups = defaultdict(list)
        for point, fs in actions.items():
            mod, kind, order = self._site(point)
            groups[(id(mod), "pre" if kind == "pre" else "post")].append((mod, kind, order, point, fs))

        def run_fs(fs, x):
            for f in fs:
                y = f(x)
                if y is not None:
                    x = y
            return x

        handles = []
        for (_, where), items in groups.items():
            mod = items[0][0]
            items = sorted(items, key=lambda t: (t[1] != "attn1", t[2]))   # pattern before the attention output
            if where == "pre":
                fs = [f for it in items for f in it[4]]

                def pre(module, args, kwargs, fs=fs):
                    x = args[0] if args else kwargs["hidden_states"]
                    y = run_fs(fs, x)
                    if y is x:
                        return None
                    return ((y,) + tuple(args[1:]), kwargs) if args else (args, dict(kwargs, hidden_states=y))
                handles.append(mod.register_forward_pre_hook(pre, with_kwargs=True))
            else:
                def post(module, args, output, items=items):
                    tup = isinstance(output, tuple)
                    out = list(output) if tup else [output]
                    changed = False
                    for _, kind, _, point, fs in items:
                        i = 1 if kind == "attn1" else 0
                        if kind == "attn1" and (len(out) < 2 or out[1] is None):
                            raise RuntimeError("attention weights were not returned: load the model with "
                                               "attn_implementation='eager' to read attention patterns")
                        y = run_fs(fs, out[i])
                        if y is not out[i]:
                            out[i], changed = y, True
                    if not changed:
                        return None
                    return tuple(out) if tup else out[0]
                handles.append(mod.register_forward_hook(post))
        return handles

    # ---------------------------------------------------------------- running
    def prefix(self, batch: Batch, start: int) -> Prefix | None:
        """Keys and values of columns < start of the batch (None when start is 0)."""
        if start <= 0:
            return None
        sub = Batch(batch.input_ids[:, :start], None if batch.attention_mask is None else batch.attention_mask[:, :start])
        return Prefix(self.run(sub, want=("cache",)).cache, start)

    def run(self, batch: Batch, want: Iterable[str] = ("logits",), ivs: Sequence = (), *,
            hooks: dict[str, str] | None = None, prefix: Prefix | None = None, keep=None, grad: bool = False,
            replay: tuple | None = None, consume_prefix: bool = False, branches: bool = False,
            grow: Sequence[int] | None = None) -> RunOutput:
        """One forward pass.

        want: "logits" ([B, V] at the final position; keep=K: the last K columns, or a tensor of
        columns: those, [B, K, V]), "heads", "z", "attn", "attn_full", "resid", "block_out" (every block's output,
        all columns, for `replay`), "cache" (the key/value cache). hooks: further reads, hook
        name -> "last" (column -1) or "all". ivs: intervention values. prefix: a key/value cache
        of columns < prefix.start; the pass computes only the later columns (copied unless
        consume_prefix). replay: (block_out, first): blocks < first return their recorded
        outputs instead of running. grad: autograd on (logits stay on the model's device).
        branches: `prefix` holds columns < T - 1 of B prompts, and the batch's B * k rows are k
        continuations of each by their final column (rows r * k .. r * k + k - 1 continue prompt
        r); they run as k columns of the prompt's row, all at position T - 1, each attending to
        the prefix and to itself only (a 4-D mask), so the prefix's keys and values are read by
        every row instead of being copied per row. Interventions, reads and `replay` see the
        rows as rows, as without branches.
        grow (with branches, one prompt): L non-decreasing column counts ending at k; block l
        runs only the first grow[l] branch columns, and a column joins at the first block that
        runs it as a copy of column 0's input there. The caller vouches that a row is the same
        as row 0 below the block where it joins (e.g. row 0 unpatched and a row whose patch is
        at layer l joining at block l), so the pass costs sum(grow) rather than L * k column-
        blocks. Interventions at block l see its grow[l] rows; reads at a block that runs fewer
        than k columns are refused.
        Everything else comes back on the CPU."""
        want = set(want)
        unknown = want - WANTS
        if unknown:
            raise ValueError(f"unknown outputs requested: {sorted(unknown)}")
        L = self.n_layers
        got: dict = {}
        reads: dict[str, str] = {}

        def need(point, mode):  # one capture per point, as wide as any reader needs
            if _WIDTH[mode] > _WIDTH.get(reads.get(point), -1):
                reads[point] = mode

        for p, mode in (hooks or {}).items():
            if mode not in _WIDTH:
                raise ValueError(f"hooks[{p!r}] = {mode!r}: use 'last' or 'all'")
            need(p, mode)
        for l in range(L):
            if want & {"heads", "z"}:
                need(f"blocks.{l}.attn.hook_z", "last")
            if "heads" in want:
                need(f"blocks.{l}.attn.o.hook_out", "last")
            if want & {"attn", "attn_full"}:
                need(f"blocks.{l}.attn.hook_pattern", "all" if "attn_full" in want else "last_row")
            if "resid" in want:
                need(f"blocks.{l}.hook_resid_pre", "last")
            if "block_out" in want:
                need(f"blocks.{l}.hook_resid_post", "all")
        if "resid" in want:
            need(f"blocks.{L - 1}.hook_resid_post", "last")

        state = _Pass(self)
        actions: dict[str, list] = defaultdict(list)
        for iv in ivs:
            if iv is None:
                continue
            for p in iv.points(L):
                actions[p].append(lambda x, iv=iv, p=p: iv.apply(p, x, state))
        for p, mode in reads.items():
            def read(x, p=p, mode=mode):
                x = x.detach()
                got[p] = x[:, -1] if mode == "last" else (x[:, :, -1, :] if mode == "last_row" else x)
            actions[p].append(read)

        start = prefix.start if prefix is not None else 0
        dev = self.device
        n_keep = 1 if keep is None else (keep.to(dev) if torch.is_tensor(keep) else keep)
        kw = {"input_ids": batch.input_ids[:, start:].to(dev), "logits_to_keep": n_keep,
              "use_cache": prefix is not None or "cache" in want}
        if batch.attention_mask is not None:
            kw["attention_mask"] = batch.attention_mask.to(dev)
            kw["position_ids"] = batch.position_ids[:, start:].to(dev)
        if prefix is not None:
            kw["cache"] = prefix.cache if consume_prefix else _fork(prefix.cache)
        if branches:
            n_p, k = self._branch_check(batch, want, reads, keep, prefix)
            kw.update(self._branch_inputs(batch, prefix, n_p, k, keep is None and "logits" in want))
            for p in actions:   # the hooks see [B, k, ...]; interventions and reads see B * k rows
                actions[p] = [lambda x, f=f: _branch_action(f, x) for f in actions[p]]
            if replay is not None:
                replay = ([o.reshape(n_p, k, *o.shape[2:]) for o in replay[0]], replay[1])
            if grow is not None:
                grow = self._grow_check(grow, n_p, k, want, reads, replay)
        elif grow is not None:
            raise ValueError("grow runs the branch columns of run(branches=True): pass branches=True")
        handles = self._install(actions)
        swapped = []
        try:
            if grow is not None:
                for l, m in enumerate(grow):
                    swapped.append(l)
                    self._blocks[l] = _Grow(self.layers[l], k, m)
            if replay is not None:
                outs, first = replay
                for l in range(first):
                    swapped.append(l)
                    self._blocks[l] = _Replay(outs[l])
            with (contextlib.nullcontext() if grad else torch.no_grad()):
                out = self.model(**kw)
            if branches and out.logits is not None:
                out.logits = out.logits.reshape(-1, 1, out.logits.shape[-1])   # [B * k, 1, V]: each row's final column
        finally:
            for h in handles:
                h.remove()
            for l in swapped:
                self._blocks[l] = self.layers[l]
        return self._collect(out, want, got, reads, hooks or {}, keep, grad, batch.input_ids.shape[1])

    def _branch_check(self, batch: Batch, want: set, reads: dict, keep, prefix: Prefix | None) -> tuple[int, int]:
        """(B, k) of run(..., branches=True): B prompts in the prefix, k branches each, after
        checking that the pass is one."""
        rows, T = batch.input_ids.shape
        layers = getattr(getattr(prefix, "cache", None), "layers", None)
        n_p = layers[0].keys.shape[0] if layers and layers[0].keys is not None else 0
        if prefix is None or T != prefix.start + 1 or not n_p or rows % n_p:
            raise ValueError("branches=True continues a prefix of B prompts by one column: pass "
                             "prefix=model.prefix(batch_of_B, T - 1) and B * k rows of T columns")
        k = rows // n_p
        ids = batch.input_ids[:, :-1].reshape(n_p, k, -1)
        if not torch.equal(ids, ids[:, :1].expand(-1, k, -1)):
            raise ValueError("branches=True: the rows of a prompt must share every column but the last")
        if batch.attention_mask is not None:
            m = batch.attention_mask.reshape(n_p, k, -1)
            if not torch.equal(m, m[:, :1].expand(-1, k, -1)):
                raise ValueError("branches=True: the rows of a prompt must share its attention mask")
        if want & {"attn", "attn_full", "cache"} or any(p.endswith("hook_pattern") for p in reads):
            raise ValueError("branches=True cannot read attention patterns or return the key/value cache")
        if keep is not None and not (torch.is_tensor(keep) and keep.numel() == 0):
            raise ValueError("branches=True has one column per row: keep must be None (its logits) or empty")
        if self.cfg._attn_implementation not in ("eager", "sdpa"):
            raise ValueError(f"branches=True needs attention 'eager' or 'sdpa', not {self.cfg._attn_implementation!r}")
        return n_p, k

    def _grow_check(self, grow, n_p: int, k: int, want: set, reads: dict, replay) -> list[int]:
        """run(grow=...)'s column counts, after checking that they describe a pass."""
        grow = [int(m) for m in grow]
        L = self.n_layers
        if len(grow) != L or grow[0] < 1 or grow[-1] != k or any(b < a for a, b in zip(grow, grow[1:])):
            raise ValueError(f"grow: {L} non-decreasing column counts from at least 1 up to the pass's {k} "
                             f"branch columns, one per block; got {grow}")
        if n_p != 1:
            raise ValueError(f"grow runs the branches of one prompt; this pass continues {n_p}")
        if replay is not None or "block_out" in want:
            raise ValueError("grow cannot be combined with replay or want='block_out'")
        for p in reads:
            m = grow[int(p.split(".")[1])] if p.startswith("blocks.") else k
            if m < k:
                raise ValueError(f"grow: the read {p!r} is at a block that runs {m} of the {k} columns; "
                                 "read at a block that runs them all")
        return grow

    def _branch_inputs(self, batch: Batch, prefix: Prefix, n_p: int, k: int, logits: bool) -> dict:
        """input_ids, position_ids and the 4-D additive attention masks [B, 1, k, n + k] (one
        per layer type where the layers keep different prefix lengths n, as sliding-window
        layers do) of k branch columns per prompt at column `prefix.start`: each sees the
        cached prefix columns its layer keeps (not padding, within the sliding window) and its
        own column, never another branch."""
        start, dev, dt = prefix.start, self.device, self.dtype
        first = torch.arange(n_p) * k                     # a row of each prompt
        pad = None if batch.attention_mask is None else batch.attention_mask[first, :start].bool()
        pos = batch.position_ids[first, start] if batch.attention_mask is not None else torch.full((n_p,), start)
        types = getattr(self.cfg, "layer_types", None)
        window = getattr(self.cfg, "sliding_window", None)
        lengths: dict[str, int] = {}
        for l, layer in enumerate(prefix.cache.layers):
            t = types[l] if types else ("sliding_attention" if window else "full_attention")
            n = layer.keys.shape[-2]
            if lengths.setdefault(t, n) != n:
                raise ValueError(f"branches=True: layers of type {t!r} keep different prefix lengths")
        masks = {}
        for t, n in lengths.items():
            ok = torch.ones(n_p, k, n + k, dtype=torch.bool)
            cols = torch.arange(start - n, start)          # the cache positions of the kept prefix columns
            if pad is not None:
                ok[:, :, :n] &= pad[:, None, start - n:]
            if t == "sliding_attention" and window:        # (a sliding cache layer already dropped them)
                ok[:, :, :n] &= (start - cols) < window
            elif t not in ("full_attention", "sliding_attention"):
                raise ValueError(f"branches=True: layer type {t!r} is not supported")
            ok[:, :, n:] = torch.eye(k, dtype=torch.bool)
            masks[t] = torch.zeros(n_p, 1, k, n + k, dtype=dt).masked_fill(~ok[:, None], torch.finfo(dt).min).to(dev)
        return {"input_ids": batch.input_ids[:, start].reshape(n_p, k).to(dev),
                "position_ids": pos[:, None].expand(n_p, k).contiguous().to(dev),
                "attention_mask": masks if len(masks) > 1 else next(iter(masks.values())),
                "logits_to_keep": k if logits else torch.zeros(0, dtype=torch.long, device=dev), "use_cache": True}

    def _collect(self, out, want, got, reads, asked, keep, grad, width: int) -> RunOutput:
        L = self.n_layers
        res = RunOutput()

        def at_n(p):  # the capture at the final column, whatever width it was taken at
            x = got[p]
            if reads[p] == "all":
                return x[:, :, -1, :] if p.endswith("hook_pattern") else x[:, -1]
            return x

        if "logits" in want:
            lg = out.logits
            if keep is None:
                lg = lg[:, -1, :]
            res.logits = lg if grad else lg.float().cpu()
        if "cache" in want:
            c = out.get("cache")
            res.cache = c if c is not None else out.past_key_values
        if want & {"heads", "z"}:
            z = torch.stack([at_n(f"blocks.{l}.attn.hook_z") for l in range(L)], 1).view(-1, L, self.n_heads, self.d_head)
            if "heads" in want:
                o = torch.stack([at_n(f"blocks.{l}.attn.o.hook_out") for l in range(L)], 1)
                heads, bias = self.head_outputs_from(z, o, with_bias=True)
                res.head_out, res.bias_out = heads.cpu(), bias.cpu()
            res.z = z.cpu()
        pat = [got.get(f"blocks.{l}.attn.hook_pattern") for l in range(L)]
        # a sliding-window layer continuing a key/value prefix sees only its window's cached keys:
        # the columns its cache dropped are outside every query's window (weight 0), so left pad to the batch width
        pat = [p if p is None or p.shape[-1] == width else torch.nn.functional.pad(p, (width - p.shape[-1], 0))
               for p in pat]
        if "attn_full" in want:
            res.extras["attn_full"] = torch.stack(pat, 1).cpu()
            res.attn = torch.stack([p[:, :, -1, :] for p in pat], 1).cpu()
        elif "attn" in want:
            res.attn = torch.stack([p if p.dim() == 3 else p[:, :, -1, :] for p in pat], 1).cpu()
        if "resid" in want:
            res.resid = torch.stack([at_n(f"blocks.{l}.hook_resid_pre") for l in range(L)]
                                    + [at_n(f"blocks.{L - 1}.hook_resid_post")], 1).cpu()
        if "block_out" in want:
            res.extras["block_out"] = [got[f"blocks.{l}.hook_resid_post"] for l in range(L)]
        res.hooks = {p: (got[p] if mode == reads[p] else at_n(p)) for p, mode in asked.items()}
        return res

    def head_outputs_from(self, z: torch.Tensor, o: torch.Tensor | None, with_bias: bool = False):
        """[B, L, H, d_head] z at N -> [B, L, H, d_model] residual-space head outputs (and, with
        with_bias, [B, L, d_model] what b_O adds). Where a norm sits between the heads and the
        stream (Gemma 2/3, OLMo 2), it is linearised with its scale frozen at this forward pass
        (o: the W_O output at N, b_O included), so the heads of a layer plus b_O sum exactly to
        the block's attention update."""
        outs, biases = [], []
        for l, W in enumerate(self.W_O):
            a = torch.einsum("bhd,hdm->bhm", z[:, l].to(W.dtype), W.detach().to(z.device))
            b = self.b_O(l)
            bias = (torch.zeros_like(a[:, 0]) if b is None else b.to(a.device, a.dtype)[None].expand_as(a[:, 0]))
            norm = self.post_attn_norm[l]
            if norm is not None:
                o_l = o[:, l] if o is not None else a.sum(1) + bias
                scale = self.norm_scale(norm, o_l.float())
                gain = self.norm_gain(norm).to(a.device)
                a = (a.float() * scale[:, None, :] * gain[None, None, :]).to(W.dtype)
                bias = (bias.float() * scale * gain[None, :]).to(W.dtype)
            outs.append(a)
            biases.append(bias)
        heads = torch.stack(outs, 1)
        return (heads, torch.stack(biases, 1)) if with_bias else heads

    # ---------------------------------------------------------------- raw passes for peft
    def forward_logits(self, batch: Batch, keep: int, net=None, positions: bool = True) -> torch.Tensor:
        """Logits of the last `keep` columns with autograd on, through `net` (a peft wrapper of
        this model) or the model itself; hooks and interventions do not apply."""
        dev = self.device
        kw = {"position_ids": batch.position_ids.to(dev)} if positions else {}
        net = net or self.model
        return net(input_ids=batch.input_ids.to(dev), attention_mask=batch.attention_mask.to(dev), use_cache=False,
                   **kw).logits[:, -keep:]

    def peft(self, conf):
        """The model wrapped by peft with `conf` (LoRA, prefix or prompt tuning)."""
        from peft import get_peft_model

        return get_peft_model(self.model, conf)

    def o_proj_name(self) -> str:
        """The output projection's module name inside a block (for peft target_modules)."""
        return self.adapter.o_proj

    # ---------------------------------------------------------------- tokens
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return self.tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"]

    def first_token(self, word: str) -> int:
        ids = self.encode(word, add_special_tokens=False)
        if not ids:
            raise ConfigError(f"label {word!r} tokenises to nothing")
        return ids[0]
