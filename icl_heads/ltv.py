"""Paper B, learned task vectors (LTV): a vector theta per (layer, position) added to
resid_pre of a zero-shot query, trained with the model frozen; the extracted baselines
(Vanilla TV, FV) injected the same way; and the mechanism probes (L3: the packed OV vector
theta_OV injected once in place of theta, the MLP path, and a path-patching OV control;
first-order head saliency, the linear propagation map and its polar decomposition).

Positions: a negative p counts from the query's final token (-1 = N); p >= 0 is the p-th
token of the prompt (0 = the first real token, BOS where the tokenizer adds one). A
position that falls before a short prompt's first token is skipped for that row.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from .errors import ConfigError
from .model import AddAt, HookedModel, OVReinjection, Prefix, ZGrad, left_pad, length_batches
from .prompts import Prompt

CONFIGURATIONS = ("baseline", "pos4", "multipos", "multilayer", "multi", "icl")


@dataclass(frozen=True)
class Site:
    """Where theta goes: resid_pre of each layer in `layers`, at each of `positions`,
    of zero-shot queries (prompt='zeroshot') or of n-shot ICL prompts (prompt='icl')."""

    layers: tuple[int, ...]
    positions: tuple[int, ...]
    prompt: str = "zeroshot"

    @property
    def n_vectors(self) -> int:
        return len(self.layers) * len(self.positions)


def site(name: str, n_layers: int, layer_stride: int = 4) -> Site:
    """The injection site of configuration `name` (L1 columns, or `layer{l}` for the F4 sweep)."""
    mid = n_layers // 2
    every = tuple(range(0, n_layers, layer_stride))
    last5 = (-5, -4, -3, -2, -1)
    table = {"baseline": Site((mid,), (-1,)), "pos4": Site((mid,), (4,)), "multipos": Site((mid,), last5),
             "multilayer": Site(every, (-1,)), "multi": Site(every, last5), "icl": Site((mid,), (-1,), "icl")}
    if name in table:
        return table[name]
    if name.startswith("layer") and name[5:].isdigit():
        layer = int(name[5:])
        if layer >= n_layers:
            raise ConfigError(f"LTV configuration {name!r}: the model has {n_layers} layers")
        return Site((layer,), (-1,))
    raise ConfigError(f"unknown LTV configuration {name!r}; use one of {CONFIGURATIONS} or layer<l> "
                      "(config key ltv.configurations)")




def query_sets(task, tokenizer, *, n_train: int, n_eval: int, n_shot: int, seed: int, icl: bool = True) -> dict:
    """Training queries = the first n_train of the test split, evaluation queries the next
    n_eval (fewer where the split is short); zero-shot and n-shot prompts of each."""
    n_test = len(task.split("test"))
    if n_train >= n_test:
        raise ConfigError(f"ltv.n_train={n_train} leaves no evaluation queries in dataset {task.name!r} "
                          f"({n_test} test examples)")
    from .prompts import build_prompts

    out = {}
    for name, start, n in (("train", 0, n_train), ("eval", n_train, n_eval)):
        out[f"{name}_zs"] = build_prompts(task, tokenizer, n_shot=0, start=start, n_queries=n, seed=seed)
        if icl:
            out[f"{name}_icl"] = build_prompts(task, tokenizer, n_shot=n_shot, start=start, n_queries=n, seed=seed)
    return out


# ------------------------------------------------------------------ injection
def _columns(batch, positions, query_end: int) -> tuple[torch.Tensor, torch.Tensor]:
    """[B, P] column of each (row, position) in a left-padded batch whose query ends at
    column `query_end`, and whether it lies inside the row's real tokens."""
    offsets = batch.offsets
    cols = []
    for p in positions:
        cols.append(torch.full_like(offsets, query_end + 1 + p) if p < 0 else offsets + p)
    cols = torch.stack(cols, 1)
    valid = (cols >= offsets[:, None]) & (cols <= query_end)
    return cols.clamp(0, query_end), valid


def first_column(batch, site_: Site, query_end: int = -1) -> int:
    """The earliest column theta touches: columns before it are the same with and without
    theta (causal attention), so their keys and values can be cached once."""
    T = batch.input_ids.shape[1]
    cols, valid = _columns(batch, site_.positions, query_end % T)
    return int(cols[valid].min()) if bool(valid.any()) else query_end % T



def injection(model: HookedModel, site_: Site, theta: torch.Tensor, batch, query_end: int = -1,
              start: int = 0) -> list[AddAt]:
    """The interventions that add theta[i, j] ([n_layers_of_site, n_positions, d], or [B, ...] per
    row) to resid_pre of site.layers[i] at site.positions[j]; differentiable in theta. `start`:
    the pass computes only columns start.. of the batch (the others are in a key/value prefix)."""
    T = batch.input_ids.shape[1]
    end = query_end % T
    cols, valid = _columns(batch, site_.positions, end)
    if bool((cols[valid] < start).any()):
        raise ValueError("theta would go into a cached column")
    cols = (cols - start).clamp(min=0)
    out = []
    for i, l in enumerate(site_.layers):
        th = theta[:, i] if theta.dim() == 4 else theta[i][None].expand(cols.shape[0], -1, -1)
        values = th * valid[..., None].to(th.device, th.dtype)
        out.append(AddAt(f"blocks.{l}.hook_resid_pre", values=values, cols=cols))
    return out


@dataclass
class Injection:
    """theta at `site` as an item of an evaluation condition (`icl_heads.model.evaluate`): it
    touches no column before `first_column`, so those can come from a shared prefix."""

    site: Site
    theta: torch.Tensor

    def first_column(self, batch) -> int:
        return first_column(batch, self.site)

    def resolve(self, model, batch, start):
        return injection(model, self.site, self.theta, batch, -1, start)


def conditions(named: dict) -> dict[str, list]:
    """{name: (site, theta) or (None, None)} -> evaluation conditions."""
    return {k: ([Injection(s, th)] if s is not None else []) for k, (s, th) in named.items()}


def zero_theta(model: HookedModel, site_: Site) -> torch.Tensor:
    return torch.zeros(len(site_.layers), len(site_.positions), model.d_model)


# ------------------------------------------------------------------ labels and batches
def label_ids(tokenizer, prompt: Prompt, mode: str = "all") -> list[int]:
    """Tokens of the answer as they follow the prompt (the first one is prompt.answer_token)."""
    ids = tokenizer(" " + prompt.answer, add_special_tokens=False)["input_ids"]
    if ids and ids[0] != prompt.answer_token:  # a split-off leading space: the prompt already ends with it
        ids = ids[1:]
    if not ids or ids[0] != prompt.answer_token:
        ids = [prompt.answer_token]
    return ids[:1] if mode == "first" else ids


@dataclass
class TrainBatch:
    batch: object              # Batch: prompt (left padded) + label tokens (right padded)
    targets: torch.Tensor      # [B, K] label tokens, -100 where padded
    query_end: int             # column of N
    start: int = 0             # columns before it come from `prefix`
    prefix: Prefix | None = None   # key/value cache of columns < start




def train_batch(prompts: list[Prompt], labels: list[list[int]], pad_id: int) -> TrainBatch:
    q = left_pad([p.input_ids for p in prompts], pad_id)
    K = max(len(x) for x in labels)
    B, Wq = q.input_ids.shape
    ids = torch.full((B, Wq + K - 1), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    ids[:, :Wq], mask[:, :Wq] = q.input_ids, q.attention_mask
    targets = torch.full((B, K), -100, dtype=torch.long)
    for r, lab in enumerate(labels):
        cont = lab[:-1]
        ids[r, Wq:Wq + len(cont)] = torch.tensor(cont, dtype=torch.long)
        mask[r, Wq:Wq + len(cont)] = 1
        targets[r, :len(lab)] = torch.tensor(lab, dtype=torch.long)
    return TrainBatch(type(q)(ids, mask), targets, Wq - 1)



def cache_prefix(model: HookedModel, tb: TrainBatch, site_: Site) -> TrainBatch:
    """tb with the key/value cache of every column theta cannot reach."""
    start = first_column(tb.batch, site_, tb.query_end)
    return TrainBatch(tb.batch, tb.targets, tb.query_end, start, model.prefix(tb.batch, start))


def label_loss(model: HookedModel, tb: TrainBatch, site_: Site, theta: torch.Tensor) -> torch.Tensor:
    """-log p(label | query, theta), averaged over each row's label tokens, then over rows."""
    K = tb.targets.shape[1]
    b = tb.batch
    start = tb.start if tb.prefix is not None else 0
    logits = model.run(b, ivs=injection(model, site_, theta, b, tb.query_end, start), prefix=tb.prefix,
                       keep=K, grad=True).logits
    logp = torch.log_softmax(logits[:, :K].float(), -1)
    tgt = tb.targets.to(model.device)
    ok = tgt >= 0
    tok_lp = logp.gather(-1, tgt.clamp(min=0)[..., None])[..., 0] * ok
    return -(tok_lp.sum(1) / ok.sum(1)).mean()


def resid_rms(model: HookedModel, prompts: list[Prompt], layers, batch_size: int = 16) -> torch.Tensor:
    """Root-mean-square of resid_pre at N of each of `layers`, averaged over the prompts."""
    idx_layers = [int(l) for l in layers]
    tot, n = torch.zeros(len(idx_layers)), 0
    for idx in length_batches(prompts, batch_size):
        b = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        reads = model.run(b, hooks={f"blocks.{l}.hook_resid_pre": "last" for l in idx_layers}).hooks
        hs = torch.stack([reads[f"blocks.{l}.hook_resid_pre"].float().cpu() for l in idx_layers])  # [k, B, d]
        tot += hs.pow(2).mean(-1).sqrt().sum(1)
        n += len(idx)
    return tot / n


def step_scale(model: HookedModel, prompts: list[Prompt], site_: Site, lr_scale: str, batch_size: int = 16) -> torch.Tensor:
    """[n_layers_of_site, 1, 1] factors s_l with theta_l = s_l * phi_l (ltv.lr_scale): the
    residual RMS at N of each site layer ('resid_rms') or 1 ('none')."""
    if lr_scale not in ("none", "resid_rms"):
        raise ConfigError(f"ltv.lr_scale={lr_scale!r}: use 'none' or 'resid_rms'")
    scale = (resid_rms(model, prompts, site_.layers, batch_size) if lr_scale == "resid_rms"
             else torch.ones(len(site_.layers)))
    return scale.to(model.device)[:, None, None]


def train_ltv(model: HookedModel, prompts: list[Prompt], site_: Site, *, steps: int, lr: float = 1e-3,
              weight_decay: float = 0.01, batch_size: int = 16, seed: int = 0, label_mode: str = "all",
              lr_scale: str = "none", progress: bool = False) -> tuple[torch.Tensor, list[dict]]:
    """Train one theta per (layer, position) of the site with AdamW, weights frozen. Returns
    theta [n_layers_of_site, n_positions, d] and the training curve (loss per step).

    lr_scale='resid_rms': the step size of layer l's theta is lr x RMS(resid_pre^l at N) over
    the training prompts (theta_l = s_l * phi_l with phi trained by AdamW at lr, which for
    AdamW is exactly a per-layer learning rate), so one lr fits layers whose residual
    streams differ in scale by orders of magnitude (Gemma 3: ~1 at layer 0, ~10^3 late)."""
    model.freeze()
    scale = step_scale(model, prompts, site_, lr_scale, batch_size)
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(prompts), generator=g).tolist()
    chunks = [order[s:s + batch_size] for s in range(0, len(order), batch_size)]
    batches = [cache_prefix(model, train_batch([prompts[i] for i in c],
                                               [label_ids(model.tokenizer, prompts[i], label_mode) for i in c],
                                               model.pad_id), site_) for c in chunks]
    phi = zero_theta(model, site_).to(model.device).requires_grad_(True)
    opt = torch.optim.AdamW([phi], lr=lr, weight_decay=weight_decay)
    curve = []
    for step in tqdm(range(steps), desc="LTV", file=sys.stderr, disable=not progress, unit="step"):
        tb = batches[step % len(batches)]
        opt.zero_grad()
        loss = label_loss(model, tb, site_, phi * scale)
        loss.backward()
        opt.step()
        curve.append({"step": step, "loss": float(loss.detach()), "theta_norm": float((phi * scale).detach().norm())})
    return (phi * scale).detach().cpu(), curve




# ------------------------------------------------------------------ extracted baselines
@torch.no_grad()
def extraction_means(model: HookedModel, icl: list[Prompt], zeroshot: list[Prompt], batch_size: int = 8):
    """Means at N over the prompts: resid_pre of every layer for ICL and zero-shot prompts of
    the same queries ([L+1, d] each) and every head's residual-space output on the ICL
    prompts ([L, H, d])."""
    def mean(prompts, want):
        r_sum, h_sum = None, None
        for s in range(0, len(prompts), batch_size):
            out = model.run(left_pad([p.input_ids for p in prompts[s:s + batch_size]], model.pad_id), want=want)
            r = out.resid.double().sum(0)
            r_sum = r if r_sum is None else r_sum + r
            if out.head_out is not None:
                h = out.head_out.double().sum(0)
                h_sum = h if h_sum is None else h_sum + h
        return (r_sum / len(prompts)).float(), (None if h_sum is None else (h_sum / len(prompts)).float())

    r_icl, heads = mean(icl, ("resid", "heads"))
    r_zs, _ = mean(zeroshot, ("resid",))
    return r_icl, r_zs, heads


def vanilla_theta(r_icl: torch.Tensor, r_zs: torch.Tensor, site_: Site) -> torch.Tensor:
    """Vanilla TV: mean(h_ICL^l[N] - h_0shot^l[N]) of each layer of the site, the same vector at
    every position of that layer."""
    v = (r_icl - r_zs)[list(site_.layers)]
    return v[:, None, :].expand(-1, len(site_.positions), -1).clone()


def fv_theta(head_means: torch.Tensor, heads, site_: Site) -> torch.Tensor:
    """FV: sum over the FV heads of their mean output at N of ICL prompts, at every (layer, position)."""
    v = torch.stack([head_means[l, k] for l, k in heads]).sum(0)
    return v[None, None, :].expand(len(site_.layers), len(site_.positions), -1).clone()


# ------------------------------------------------------------------ L3: OV and MLP paths
# Two different things are called "OV" here, and only the first is the paper's L3:
# - the packed OV vector theta_OV (packed_ov, PackedOV): theta's effect through the OV circuit
#   of every head that reads it, summed into ONE residual vector ("formally isomorphic to a
#   function vector") and injected ONCE at the LTV's site in place of theta;
# - a path-patching control (ov_reconstruction, OVReinjection): theta removed, and at N of
#   every later layer each head's OV term re-enters that layer's attention output directly.
OV_ATTENTION = ("one", "actual")


def _check_attention(attention: str):
    if attention not in OV_ATTENTION:
        raise ConfigError(f"ltv.ov_attention={attention!r}: use one of {OV_ATTENTION}")


def ov_terms(model: HookedModel, theta: torch.Tensor, layer: int, per_head: bool = False) -> torch.Tensor:
    """[L, d]: row l' >= layer is sum_k W_O^{l',k} W_V^{l',k} norm_linear_{l'}(theta), theta's
    OV term through the heads of layer l' (norm_linear = the attention-input norm's linear part
    at unit scale: gain * theta, or gain * (theta - mean theta) for LayerNorm; the norm's 1/rms
    and the attention weight c_NN are not in it, b_V is not either: it does not depend on
    theta); rows before `layer` are 0. per_head: [L, H, d], the term of each head before the sum."""
    out = torch.zeros(model.n_layers, model.n_heads, model.d_model)
    theta = theta.detach().float().cpu()
    for l in range(layer, model.n_layers):
        x = model.norm_linear(model.norm_of(l, "attn"), theta).cpu()
        W = model.weights(l)
        v = torch.einsum("d,hdk->hk", x, W["W_V"].float().cpu())            # [H, d_head]
        out[l] = torch.einsum("hd,hdm->hm", v, W["W_O"].detach().float().cpu())
    return out if per_head else out.sum(1)


@torch.no_grad()
def packed_ov(model: HookedModel, site_: Site, theta: torch.Tensor, batch, query_end: int = -1,
              attention: str = "one") -> torch.Tensor:
    """The packed OV vector of every row of `batch`: [B, n_layers_of_site, n_positions, d].

    For site layer l and position p (column j of the row), with h_{l'} = resid_pre of layer l'
    at column j in the CLEAN pass of this row (no theta):

        theta_OV = sum_{l' >= l} P_{l'}( s_{l'} * sum_k c_k W_O^{l',k} W_V^{l',k} norm_linear_{l'}(theta) )

    - norm_linear_{l'} (g): the linear part of layer l''s attention-input norm (the model
      layer's `norm_linear`): gain * x for RMSNorm (gain 1 + w where the family stores w - 1),
      gain * (x - mean x) for LayerNorm (GPT-2, NeoX);
    - s_{l'} = 1 / rms_{l'}: the scale that same norm applies to h_{l'} (`norm_scale`: 1/rms,
      1/std for LayerNorm, 1 without a norm), PER QUERY (this row's own clean pass), not a mean
      over queries; it is what the norm would divide theta by if theta were a small addition to
      h_{l'};
    - c_k: 1 for every head (attention='one', the paper's packed sum) or head k's attention of
      column j on itself in the clean pass (attention='actual', needs eager attention);
    - P_{l'}: identity, or where a norm sits between W_O and the stream (Gemma 2/3, OLMo 2) that
      norm linearised at the clean pass's scale of the attention output at column j (as
      `HookedModel.head_outputs_from` does for head outputs).
    Rows' columns outside their real tokens get 0 (as `injection` skips them)."""
    _check_attention(attention)
    T = batch.input_ids.shape[1]
    cols, valid = _columns(batch, site_.positions, query_end % T)
    B, P = cols.shape
    first = min(site_.layers)
    layers = list(range(first, model.n_layers))
    post = {l for l in layers if model.post_attn_norm[l] is not None}
    hooks = {f"blocks.{l}.hook_resid_pre": "all" for l in layers}
    hooks.update({f"blocks.{l}.attn.o.hook_out": "all" for l in post})
    want = ("attn_full",) if attention == "actual" else ()
    out = model.run(batch, want=want, hooks=hooks)
    rows = torch.arange(B)[:, None].expand(B, P)

    def at_cols(x):  # [B, T, d] -> [B, P, d]
        return x.float()[rows, cols]

    # the OV terms of theta[i, j] through each head of every layer: [n_site_layers, P, L, H, d]
    th = theta.detach().float().cpu()
    terms = torch.stack([torch.stack([ov_terms(model, th[i, j], l0, per_head=True) for j in range(P)])
                         for i, l0 in enumerate(site_.layers)])
    res = torch.zeros(B, len(site_.layers), P, model.d_model)
    for l in layers:
        s_in = model.norm_scale(model.norm_of(l, "attn"), at_cols(out.hooks[f"blocks.{l}.hook_resid_pre"]))  # [B, P, 1]
        if attention == "actual":
            pat = out.extras["attn_full"][:, l].float()                              # [B, H, T, T]
            c = pat[rows[..., None], torch.arange(model.n_heads)[None, None, :], cols[..., None], cols[..., None]]  # [B, P, H]
            v = torch.einsum("bph,iphm->bipm", c, terms[:, :, l])
        else:
            v = terms[:, :, l].sum(2)[None].expand(B, -1, -1, -1)                  # [B, i, P, d]
        v = v * s_in[:, None]
        if l in post:
            norm = model.post_attn_norm[l]
            s_post = model.norm_scale(norm, at_cols(out.hooks[f"blocks.{l}.attn.o.hook_out"]))  # [B, P, 1]
            v = model.norm_linear(norm, v) * s_post[:, None]
        for i, l0 in enumerate(site_.layers):
            if l >= l0:
                res[:, i] += v[:, i]
    return res * valid[:, None, :, None]


def random_direction(shape, seed: int) -> torch.Tensor:
    """Unit vectors (normalised over the last axis) of a standard normal draw seeded with `seed`."""
    g = torch.Generator().manual_seed(int(seed) % 2**63)
    v = torch.randn(*shape, generator=g)
    return v / v.norm(dim=-1, keepdim=True)


@dataclass
class PackedOV:
    """L3 as in the paper: theta is replaced by its packed OV vector (`packed_ov`, per query)
    added ONCE at theta's own site (resid_pre of site.layers at site.positions, through
    `injection`). With `direction` ([n_layers_of_site, n_positions, d] unit vectors), the
    control with the same norm per query and that fixed direction instead (norm-matched random
    direction). An item of an evaluation condition, like `Injection`."""

    site: Site
    theta: torch.Tensor
    attention: str = "one"
    direction: torch.Tensor | None = None

    def vectors(self, model, batch) -> torch.Tensor:
        v = packed_ov(model, self.site, self.theta, batch, -1, self.attention)
        if self.direction is not None:
            v = v.norm(dim=-1, keepdim=True) * self.direction.float()[None]
        return v

    def first_column(self, batch) -> int:
        return first_column(batch, self.site)

    def resolve(self, model, batch, start):
        return injection(model, self.site, self.vectors(model, batch), batch, -1, start)


def packed_ov_norms(model: HookedModel, prompts: list[Prompt], item: PackedOV, batch_size: int = 16) -> torch.Tensor:
    """[n_prompts, n_layers_of_site, n_positions] the norm of `item`'s vector for each prompt."""
    out = torch.zeros(len(prompts), len(item.site.layers), len(item.site.positions))
    for idx in length_batches(prompts, batch_size):
        b = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        out[torch.tensor(idx)] = item.vectors(model, b).norm(dim=-1)
    return out


def ov_reconstruction(terms: torch.Tensor, first_layer: int, attention: str = "one") -> OVReinjection:
    """CONTROL (path patching), not the paper's L3 (that is `PackedOV`): theta is removed and
    reaches only the values at N, at every layer l' >= first_layer, at full strength:
    attention='one' adds terms[l'] ([L, d], ov_terms) / rms(resid_pre^{l'}[N]) to layer l''s
    attention output, every c_NN taken as 1; attention='actual' adds
    sum_k c_NN^{l',k} terms[l', k] ([L, H, d], ov_terms(per_head=True)) / rms, with c_NN the
    attention of N on itself in the current pass (needs eager attention). Nothing is injected
    into the residual stream at the site, so later layers never see the earlier terms as input."""
    _check_attention(attention)
    if attention == "actual":
        if terms.dim() != 3:
            raise ValueError("attention='actual' needs per-head terms [L, H, d] (ov_terms(per_head=True))")
    elif terms.dim() == 3:
        terms = terms.sum(1)
    return OVReinjection(terms, first_layer, attention)


def mlp_path(model: HookedModel, theta: torch.Tensor, first_layer: int) -> list[AddAt]:
    """Theta reaches only the MLPs: added at N to the input of each later MLP's norm, never to
    the residual stream or to attention."""
    return [AddAt(f"blocks.{l}.hook_mlp_in", theta, (-1,)) for l in range(first_layer, model.n_layers)]


# ------------------------------------------------------------------ L4: head saliency
def head_saliency(model: HookedModel, prompts: list[Prompt], site_: Site, theta: torch.Tensor,
                  batch_size: int = 8) -> torch.Tensor:
    """[n_prompts, L, H] first-order Taylor saliency |a . dp/da| of each head's output a at N
    with theta injected, p = probability of the answer token (computed in z space:
    a . dp/da = z . dp/dz, exact for the linear W_O)."""
    model.freeze()
    out = torch.zeros(len(prompts), model.n_layers, model.n_heads)
    for idx in length_batches(prompts, batch_size):
        b = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        zg = ZGrad()
        logits = model.run(b, ivs=[*injection(model, site_, theta, b), zg], grad=True).logits
        ans = torch.tensor([prompts[i].answer_token for i in idx], device=logits.device)
        p = torch.softmax(logits.float(), -1).gather(-1, ans[:, None]).sum()
        grads = torch.autograd.grad(p, [zg.deltas[l] for l in range(model.n_layers)])
        for l, g in enumerate(grads):
            s = (zg.z[l] * g).view(len(idx), model.n_heads, model.d_head).sum(-1).abs()
            out[torch.tensor(idx), l] = s.float().cpu()
    return out


# ------------------------------------------------------------------ L5: linear propagation
def noisy_copies(theta: torch.Tensor, n: int, scale: float, seed: int) -> torch.Tensor:
    """theta + lambda_i * eps_i, eps_i ~ N(0, I) scaled to theta's norm per dimension,
    lambda_i ~ U(0, scale); row 0 is theta itself."""
    g = torch.Generator().manual_seed(seed)
    d = theta.numel()
    eps = torch.randn(n, d, generator=g) * theta.norm() / d ** 0.5
    lam = torch.rand(n, 1, generator=g) * scale
    lam[0] = 0.0
    return theta.flatten()[None] + lam * eps



@torch.no_grad()
def final_state_change(model: HookedModel, prompts: list[Prompt], layer: int, thetas: torch.Tensor,
                       batch_size: int = 256) -> tuple[torch.Tensor, torch.Tensor]:
    """For each theta_i ([n, d]) injected at resid_pre[layer], N: the mean over prompts of the
    change of the final hidden state (input of the final norm) at N ([n, d]); also the
    zero-shot final states ([n_prompts, d]). The prompts' columns before N run once."""
    site_ = Site((layer,), (-1,))
    b0 = left_pad([p.input_ids for p in prompts], model.pad_id)
    T, nq = b0.input_ids.shape[1], len(prompts)
    final = {f"blocks.{model.n_layers - 1}.hook_resid_post": "last"}
    prefix = model.prefix(b0, T - 1)

    def final_state(**kw):
        return next(iter(model.run(hooks=final, **kw).hooks.values())).float().cpu()

    base = final_state(batch=b0, prefix=prefix)
    per = max(1, batch_size // nq)
    out = torch.zeros(thetas.shape[0], model.d_model)
    for s in range(0, thetas.shape[0], per):
        th = thetas[s:s + per]
        k = th.shape[0]
        b = b0.repeat_interleave(k)
        rows = th.repeat(nq, 1)[:, None, None, :]
        fin = final_state(batch=b, ivs=injection(model, site_, rows, b, -1, T - 1), prefix=prefix.repeat_interleave(k),
                          consume_prefix=True).view(nq, k, -1)
        out[s:s + k] = (fin - base[:, None]).mean(0)
    return out, base

def fit_linear_map(X: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """Least-squares W ([d_out, d_in]) with Y ≈ X W^T (minimum-norm where under-determined)."""
    sol = np.linalg.lstsq(X.double().numpy(), Y.double().numpy(), rcond=None)[0]
    return torch.from_numpy(sol.T.copy())


def polar(W: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """W = Q Sigma, Q orthogonal (rotation), Sigma symmetric positive semi-definite (stretch)."""
    from scipy.linalg import polar as _polar

    Q, S = _polar(W.double().numpy(), side="right")
    return torch.from_numpy(Q), torch.from_numpy(S)



def logits_from_final(model: HookedModel, h: torch.Tensor) -> torch.Tensor:
    """Logits of final hidden states h ([n, d], before the final norm)."""
    return model.logits_from_resid(h)

def label_alignment(v: torch.Tensor, W_Y: torch.Tensor) -> float:
    """||Proj_span(W_Y^T) v|| / ||v||: how much of v lies in the span of the task's label
    unembeddings (W_Y: [n_labels, d])."""
    Q, _ = torch.linalg.qr(W_Y.double().T)
    v = v.double().flatten()
    return float((Q.T @ v).norm() / v.norm().clamp_min(1e-12))


def top_tokens(model: HookedModel, v: torch.Tensor, k: int = 5) -> list[str]:
    scores = model.unembed().float() @ v.float().flatten()
    return model.tokenizer.convert_ids_to_tokens(torch.topk(scores, k).indices.tolist())