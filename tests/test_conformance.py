"""Conformance suite of the model layer: a decoder family is *supported* exactly when it passes
every check here (see `SUPPORTED`).

For every adapter family a tiny random model is built from its transformers config class (3
layers, 4 heads, grouped key/value heads where the family has them, d_model 32, vocab 64, eager
attention), with EVERY parameter randomised (biases, norm gains and norm biases included) and
the family's optional parts switched on (biases, soft caps, partial rotary, parallel residual,
sliding-window layers). The checks compare `HookedModel` against quantities computed
independently of `icl_heads.model`: hooks registered here on the Hugging Face modules (named in
`SPECS`, written from the transformers sources, not from `adapters.py`), the model's own
projection modules, hand-edited copies of the model and closed forms from the raw weights.

Checks (one test function each):
  1 heads_sum        head outputs + b_O equal what attention adds to the stream at N
  2 zero_ablation    zero-ablating a head (norm="live") equals deleting its slice of W_O
 2b frozen_ablation  the default ablation removes exactly the head's clean residual-space contribution
  3 weights          W_Q/W_K/W_V/b_* match the model's own projections; z = pattern @ (x W_V + b_V);
                     W_O/b_O match the output projection; per-head outputs in closed form
  4 head_patch       HeadPatch / RowHeadPatch change only the rows, heads and positions named
  5 resid_add        ResidAdd(l, v) leaves layers < l alone and moves layer l's input by v
  6 prefix           a key/value-prefix continuation equals the full pass (left padded), twice
  7 left_padding     a row alone equals the same row left padded in a batch
  8 zgrad            ZGrad gradients at z equal central finite differences
  9 unembed          logits at N are the closed form (x s) unembed()^T + unembed_bias() (+ soft cap);
                     log p(token) taken vocab block by block equals log_softmax of the logits
 10 replay           replaying recorded block outputs equals the full run; the block list is intact
 11 fv_fast          FV scores by the shared-prefix, start-at-layer fast path equal one full pass per
                     (prompt, head); a broadcast prefix (views) continues like a copied one and is left intact
 12 shared_eval      the evaluation loop's sharing modes (layers, columns, both) equal a full pass per
                     condition, for residual additions at N of each layer, head ablations and the clean run
 13 branches         rows continuing one prefix as columns of one sequence (a 4-D mask) equal a full
                     pass per row
 14 grow             branches that join the pass at their own layer (run(grow=...)) equal every block
                     running every branch
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
from typing import Callable

import pytest
import torch

from icl_heads.model import (ADAPTERS, Batch, HeadAblation, HeadPatch, HookedModel, ResidAdd, RowHeadPatch, ZGrad,
                             left_pad)
from tests.conftest import make_tokenizer

D, H, HKV, DH, V, L = 32, 4, 2, 8, 64, 3
# Two left-padded rows: the second has 3 pad columns; longer than Gemma 3's sliding window (3).
ROWS = [[1, 5, 9, 12, 7, 30, 41, 22, 17], [1, 11, 50, 13, 8, 33]]


# ------------------------------------------------------------------------------------------ families
@dataclasses.dataclass(frozen=True)
class Spec:
    """How to build a family's tiny model, and where its modules are (read from the
    transformers sources, independently of icl_heads/model/adapters.py)."""

    adapter: str                       # key of ADAPTERS
    build: Callable                    # () -> CausalLM (random init, before randomisation)
    layers: Callable                   # model -> list of decoder blocks
    attn: Callable                     # block -> attention module
    o_proj: Callable                   # block -> output projection
    mlp_branch: Callable               # block -> module whose output the MLP branch adds to the stream
    final_norm: Callable               # model -> final norm
    qkv: Callable                      # attention module -> [(module, split)], split(out) -> {"q"|"k"|"v": [B,T,n,dh]}
    attn_post_norm: Callable | None = None  # block -> norm applied to the attention output (post-norm families)
    offset_norm: bool = False          # norms scale by (1 + w) (Gemma)
    layernorm: bool = False            # LayerNorm (else RMSNorm)
    n_kv: int = HKV


def _heads(x, n):
    return x.view(*x.shape[:-1], n, DH)


def _sep(n_kv):
    def qkv(attn):
        return [(attn.q_proj, lambda o: {"q": _heads(o, H)}), (attn.k_proj, lambda o: {"k": _heads(o, n_kv)}),
                (attn.v_proj, lambda o: {"v": _heads(o, n_kv)})]
    return qkv


def _gpt2_qkv(attn):   # GPT2Attention: c_attn(x).split(d_model, dim=2), each viewed [.., H, dh]
    return [(attn.c_attn, lambda o: dict(zip("qkv", (_heads(t, H) for t in o.split(D, dim=2)))))]


def _neox_qkv(attn):   # GPTNeoXAttention: view(.., H, 3 * dh).chunk(3, -1)
    return [(attn.query_key_value, lambda o: dict(zip("qkv", o.view(*o.shape[:-1], H, 3 * DH).chunk(3, -1))))]


def _phi3_qkv(attn):   # Phi3Attention: rows q (H dh) | k (Hkv dh) | v (Hkv dh)
    def split(o):
        q, k, v = o.split([H * DH, HKV * DH, HKV * DH], -1)
        return {"q": _heads(q, H), "k": _heads(k, HKV), "v": _heads(v, HKV)}
    return [(attn.qkv_proj, split)]


COMMON = dict(vocab_size=V, hidden_size=D, intermediate_size=64, num_hidden_layers=L, num_attention_heads=H,
              max_position_embeddings=128, attn_implementation="eager")


def _hf(cls_name, cfg_name, **kw):
    """A builder of the family's CausalLM; a large norm eps (1e-2) so that every norm's eps matters."""
    if not cfg_name.startswith("GPT"):
        kw.setdefault("rms_norm_eps", 1e-2)
    def build():
        import transformers
        cfg = getattr(transformers, cfg_name)(**{**COMMON, **kw})
        return getattr(transformers, cls_name)(cfg)
    return build


def _llama_like(adapter, build, **kw):
    base = dict(adapter=adapter, build=build, layers=lambda m: list(m.model.layers), attn=lambda b: b.self_attn,
                o_proj=lambda b: b.self_attn.o_proj, mlp_branch=lambda b: b.mlp, final_norm=lambda m: m.model.norm,
                qkv=_sep(kw.get("n_kv", HKV)))
    return Spec(**{**base, **kw})


_POST_NORM = dict(mlp_branch=lambda b: b.post_feedforward_layernorm,      # Gemma 2 / 3, OLMo 2
                  attn_post_norm=lambda b: b.post_attention_layernorm)

SPECS: dict[str, Spec] = {
    "llama": _llama_like("llama", _hf("LlamaForCausalLM", "LlamaConfig", num_key_value_heads=HKV,
                                      attention_bias=True, mlp_bias=True)),
    "mistral": _llama_like("mistral", _hf("MistralForCausalLM", "MistralConfig", num_key_value_heads=HKV,
                                          head_dim=DH, sliding_window=4)),
    "qwen2": _llama_like("qwen2", _hf("Qwen2ForCausalLM", "Qwen2Config", num_key_value_heads=HKV)),
    "qwen3": _llama_like("qwen3", _hf("Qwen3ForCausalLM", "Qwen3Config", num_key_value_heads=HKV, head_dim=DH,
                                      attention_bias=True)),
    "gemma": _llama_like("gemma", _hf("GemmaForCausalLM", "GemmaConfig", num_key_value_heads=HKV, head_dim=DH,
                                      attention_bias=True), offset_norm=True),
    "gemma2": _llama_like("gemma2", _hf("Gemma2ForCausalLM", "Gemma2Config", num_key_value_heads=HKV, head_dim=DH,
                                        attention_bias=True, query_pre_attn_scalar=DH, final_logit_softcapping=2.0,
                                        attn_logit_softcapping=3.0, sliding_window=4),
                          offset_norm=True, **_POST_NORM),
    "gemma3_text": _llama_like("gemma3_text", _hf("Gemma3ForCausalLM", "Gemma3TextConfig", num_key_value_heads=HKV,
                                                  head_dim=DH, attention_bias=True, query_pre_attn_scalar=DH,
                                                  sliding_window=3, layer_types=["sliding_attention", "full_attention",
                                                                                 "sliding_attention"]),
                               offset_norm=True, **_POST_NORM),
    "phi3": _llama_like("phi3", _hf("Phi3ForCausalLM", "Phi3Config", num_key_value_heads=HKV, pad_token_id=0),
                        qkv=_phi3_qkv),
    "olmo2": _llama_like("olmo2", _hf("Olmo2ForCausalLM", "Olmo2Config", num_key_value_heads=HKV, attention_bias=True,
                                      pad_token_id=0), **_POST_NORM),
    "gpt2": Spec("gpt2", _hf("GPT2LMHeadModel", "GPT2Config", n_positions=128, tie_word_embeddings=False,
                             bos_token_id=1, eos_token_id=3, layer_norm_epsilon=1e-2),
                 layers=lambda m: list(m.transformer.h), attn=lambda b: b.attn, o_proj=lambda b: b.attn.c_proj,
                 mlp_branch=lambda b: b.mlp, final_norm=lambda m: m.transformer.ln_f, qkv=_gpt2_qkv, layernorm=True,
                 n_kv=H),
}
for _par in (True, False):
    SPECS[f"gpt_neox-{'parallel' if _par else 'sequential'}"] = Spec(
        "gpt_neox", _hf("GPTNeoXForCausalLM", "GPTNeoXConfig", attention_bias=True, rotary_pct=0.25,
                        layer_norm_eps=1e-2, use_parallel_residual=_par),
        layers=lambda m: list(m.gpt_neox.layers), attn=lambda b: b.attention, o_proj=lambda b: b.attention.dense,
        mlp_branch=lambda b: b.mlp, final_norm=lambda m: m.gpt_neox.final_layer_norm, qkv=_neox_qkv, layernorm=True,
        n_kv=H)

# (test id, check) -> reason. A family listed here fails that check for a genuine architectural
# reason; the test is a strict xfail (it must keep failing), and the family is not SUPPORTED.
KNOWN_FAILURES: dict[tuple[str, str], str] = {}

CHECKS = ("heads_sum", "zero_ablation", "frozen_ablation", "weights", "head_patch", "resid_add", "prefix", "left_padding", "zgrad",
          "unembed", "replay", "fv_fast", "shared_eval", "branches", "grow")


def supported_families() -> list[str]:
    """Adapter families that pass every conformance check in every configuration tested."""
    bad = {SPECS[t].adapter for t, _ in KNOWN_FAILURES}
    return sorted({s.adapter for s in SPECS.values()} - bad)


SUPPORTED = supported_families()


def test_every_adapter_family_is_covered():
    assert {s.adapter for s in SPECS.values()} == set(ADAPTERS)
    assert all(t in SPECS and c in CHECKS for t, c in KNOWN_FAILURES)
    assert set(SUPPORTED) <= set(ADAPTERS)


@pytest.mark.parametrize("tid", list(SPECS))
def test_tiny_models_exercise_the_family_options(tid):
    """The tiny models are what the checks claim: every bias and norm parameter randomised (none
    left at its 0 / 1 initialisation), grouped key/value heads where the family has them, and
    sliding-window layers that really cut the attention from N."""
    h, spec = hooked(tid), SPECS[tid]
    for name, p in h.model.named_parameters():
        assert p.detach().std() > 0.05, f"{name} is not randomised"
    assert h.n_kv_heads == spec.n_kv and h.d_head == DH and h.n_layers == L
    cfg = h.model.config
    if tid.startswith("gpt_neox"):
        assert h.adapter.parallel == cfg.use_parallel_residual == tid.endswith("parallel")
    window = getattr(cfg, "sliding_window", None)
    if window:
        types = getattr(cfg, "layer_types", None) or ["sliding_attention"] * L
        attended = (h.run(batch(), want=("attn",)).attn[0] > 0).sum(-1)      # [L, H], row 0 (unpadded)
        for l, kind in enumerate(types):
            assert (attended[l] == (window if kind == "sliding_attention" else len(ROWS[0]))).all(), (l, kind)


def _params(check):
    return [pytest.param(t, id=t, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[(t, check)])]
                         if (t, check) in KNOWN_FAILURES else []) for t in SPECS]


# ------------------------------------------------------------------------------------------ models
def _is_norm(mod):
    return isinstance(mod, torch.nn.LayerNorm) or type(mod).__name__.endswith("RMSNorm")


def randomise(model, spec: Spec, seed: int = 0):
    """Every parameter random: norm gains normal(1, 0.3) (normal(0, 0.3) for Gemma's (1 + w)
    norms), norm biases, every other weight and every bias normal(0, 0.2)."""
    g = torch.Generator().manual_seed(seed)

    def fill(p, mean, std):
        p.copy_(mean + std * torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype))

    done = set()
    with torch.no_grad():
        for mod in model.modules():
            if _is_norm(mod):
                fill(mod.weight, 0.0 if spec.offset_norm else 1.0, 0.3)
                done.add(id(mod.weight))
                if getattr(mod, "bias", None) is not None:
                    fill(mod.bias, 0.0, 0.2)
                    done.add(id(mod.bias))
        for name, p in model.named_parameters():
            if id(p) not in done:
                fill(p, 0.0, 0.2)
                done.add(id(p))
    return model


_CACHE: dict[str, HookedModel] = {}


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Tiny matrices: one intra-op thread is many times faster than two on a busy machine."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def hooked(tid: str) -> HookedModel:
    if tid not in _CACHE:
        spec = SPECS[tid]
        torch.manual_seed(0)
        model = randomise(spec.build(), spec).eval()
        _CACHE[tid] = HookedModel(model, make_tokenizer(), name=f"tiny-{tid}")
    return _CACHE[tid]


def batch():
    return left_pad(ROWS, 0)


def hf_logits(model, b, pos=-1):
    """The model's own logits of a left-padded batch (no HookedModel involved)."""
    with torch.no_grad():
        out = model(input_ids=b.input_ids, attention_mask=b.attention_mask,
                    position_ids=(b.attention_mask.cumsum(-1) - 1).clamp(min=0), use_cache=False)
    return out.logits[:, pos].float()


@contextlib.contextmanager
def capture(*targets):
    """Forward hooks registered here on HF modules. targets: (module, key, what) with what
    "in" (the module's first input, as modified by any pre-hook), "out" (its first output) or
    "attn_w" (its second output: attention weights). Yields {key: tensor}."""
    got, handles = {}, []

    def first(x):
        return x[0] if isinstance(x, (tuple, list)) else x

    for mod, key, what in targets:
        def hook(m, args, kwargs, out, key=key, what=what):
            if what == "in":
                got[key] = (args[0] if args else kwargs["hidden_states"]).detach().clone()
            elif what == "out":
                got[key] = first(out).detach().clone()
            else:
                got[key] = out[1].detach().clone()
        handles.append(mod.register_forward_hook(hook, with_kwargs=True))
    try:
        yield got
    finally:
        for h in handles:
            h.remove()


def close(a, b, atol=1e-5, rtol=1e-5, msg=""):
    torch.testing.assert_close(a.double(), b.double(), atol=atol, rtol=rtol, msg=lambda m: f"{msg}\n{m}")


def _rms_scale(x, eps):
    return torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + eps)


def _eps(norm):
    return float(norm.eps if hasattr(norm, "eps") else norm.variance_epsilon)


def _norm_apply(spec, norm, x):
    """The norm's output computed here from its weights (RMS / offset RMS / LayerNorm)."""
    x = x.double()
    w = norm.weight.detach().double()
    if spec.layernorm:
        xc = x - x.mean(-1, keepdim=True)
        return xc * torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + _eps(norm)) * w + norm.bias.detach().double()
    return x * _rms_scale(x, _eps(norm)) * ((1 + w) if spec.offset_norm else w)


# ------------------------------------------------------------------------------------------ checks
@pytest.mark.parametrize("tid", _params("heads_sum"))
def test_heads_sum_to_attention_update(tid):
    """1. sum_k head_out + bias_out == what attention adds to the stream at N (read here as
    resid_post - resid_pre - MLP branch; for post-norm families also the post-attention norm's output)."""
    h, spec = hooked(tid), SPECS[tid]
    blocks = spec.layers(h.model)
    targets = [(b, ("blk", l), "in") for l, b in enumerate(blocks)] + \
              [(b, ("post", l), "out") for l, b in enumerate(blocks)] + \
              [(spec.mlp_branch(b), ("mlp", l), "out") for l, b in enumerate(blocks)]
    if spec.attn_post_norm:
        targets += [(spec.attn_post_norm(b), ("apn", l), "out") for l, b in enumerate(blocks)]
    with capture(*targets) as got:
        out = h.run(batch(), want=("heads",))
    assert out.head_out.shape == (2, L, H, D) and out.bias_out.shape == (2, L, D)
    total = out.head_out.sum(2) + out.bias_out
    for l in range(L):
        update = got["post", l][:, -1] - got["blk", l][:, -1] - got["mlp", l][:, -1]
        close(total[:, l], update, msg=f"layer {l}: heads + b_O vs resid_post - resid_pre - mlp")
        if spec.attn_post_norm:
            close(total[:, l], got["apn", l][:, -1], msg=f"layer {l}: heads + b_O vs post-attention norm output")
    # b_O is exercised where the family has it
    if any(getattr(spec.o_proj(b), "bias", None) is not None for b in blocks):
        assert out.bias_out.abs().max() > 1e-3


def _zero_o_slice(model, spec, l, k):
    m = copy.deepcopy(model)
    o = spec.o_proj(spec.layers(m)[l])
    with torch.no_grad():
        if type(o).__name__ == "Conv1D":      # GPT-2: weight [in, out]
            o.weight[k * DH:(k + 1) * DH, :] = 0
        else:                                 # nn.Linear: weight [out, in]
            o.weight[:, k * DH:(k + 1) * DH] = 0
    return m


@pytest.mark.parametrize("tid", _params("zero_ablation"))
def test_zero_ablation_equals_deleting_the_heads_W_O_slice(tid):
    """2. HeadAblation([(l, k)], "zero", norm="live") == a copy of the model with head k's W_O
    slice zeroed (b_O kept); without a post-attention norm the default (frozen) is the same."""
    h, spec = hooked(tid), SPECS[tid]
    b = batch()
    clean = hf_logits(h.model, b)
    for l, k in [(0, 3), (1, 0), (2, 2)]:
        ref = hf_logits(_zero_o_slice(h.model, spec, l, k), b)
        got = h.run(b, ivs=[HeadAblation([(l, k)], "zero", norm="live")]).logits
        assert (ref - clean).abs().max() > 1e-4, "ablation must change the logits"
        close(got, ref, msg=f"ablating ({l}, {k})")
        frozen = h.run(b, ivs=[HeadAblation([(l, k)], "zero")]).logits
        if spec.attn_post_norm is None:
            assert torch.equal(frozen, got), "no post-attention norm: frozen and live ablation are one computation"
        else:
            assert (frozen - got).abs().max() > 1e-4, "a post-attention norm: frozen differs from live"


@pytest.mark.parametrize("tid", _params("frozen_ablation"))
def test_frozen_norm_ablation_removes_only_the_heads_contribution(tid):
    """2b. Head ablation in residual space (the default, norm="frozen"): at every position, what
    layer l's attention adds to the stream becomes the clean update minus head k's clean
    contribution z_k W_O[k] (through the post-attention norm at the clean pass's scale where the
    family has one), so every other head's contribution is unchanged. Zero and mean modes."""
    h, spec = hooked(tid), SPECS[tid]
    b = batch()
    blocks = spec.layers(h.model)
    for l, k in [(0, 1), (2, 3)]:
        blk = blocks[l]
        o = spec.o_proj(blk)
        post = spec.attn_post_norm(blk) if spec.attn_post_norm else None
        # what attention adds to the stream, read (as in check 1) from the block's input and output
        # and the MLP branch: hooks here run before HookedModel's own, so the norm's output itself
        # would be read before the ablation rescales it
        targets = [(o, "z", "in"), (o, "o", "out"), (blk, "in", "in"), (blk, "out", "out"),
                   (spec.mlp_branch(blk), "mlp", "out")]
        with capture(*targets) as clean:
            h.run(b)
        z = clean["z"].double().view(*clean["z"].shape[:2], H, DH)
        W = o.weight.detach().double()
        W = W if type(o).__name__ == "Conv1D" else W.T               # [H * dh, d]
        means = torch.randn(L, H, DH, generator=torch.Generator().manual_seed(l))

        def update(got):
            return got["out"].double() - got["in"].double() - got["mlp"].double()

        for mode, repl in [("zero", torch.zeros(DH)), ("mean", means[l, k])]:
            delta = (repl.double() - z[:, :, k]) @ W[k * DH:(k + 1) * DH]     # [B, T, d]: new minus old contribution
            with capture(*targets) as got:
                h.run(b, ivs=[HeadAblation([(l, k)], mode, means=means if mode == "mean" else None)])
            if post is not None:
                w = post.weight.detach().double()
                gain = (1 + w) if spec.offset_norm else w
                delta = delta * _rms_scale(clean["o"], _eps(post)) * gain      # at the clean pass's scale
                live = _norm_apply(spec, post, got["o"])                      # what renormalising would give
                assert (update(got) - live).abs().max() > 1e-4, "frozen must differ from live on this random model"
            close(update(got), update(clean) + delta, msg=f"{mode} ablation of ({l}, {k}): attention update")


@pytest.mark.parametrize("tid", _params("weights"))
def test_weights_in_transformerlens_shapes(tid):
    """3. weights(l) against the model's own projection modules and closed forms:
    x W_Q + b_Q == the q projection (before rotary / q-k norm), likewise K and V (GQA repetition:
    query head i reads key/value head i // (H / H_kv)); z == pattern @ (x W_V + b_V) at every
    position; W_O[k] / b_O are head k's slice of the output projection; head_out[k] at N is
    z_k W_O[k] (scaled by the post-attention norm at the pass's own scale where there is one)."""
    h, spec = hooked(tid), SPECS[tid]
    blocks = spec.layers(h.model)
    rep = H // spec.n_kv
    targets = []
    for l, blk in enumerate(blocks):
        attn = spec.attn(blk)
        targets += [(attn, ("x", l), "in"), (attn, ("pat", l), "attn_w"), (spec.o_proj(blk), ("z", l), "in"),
                    (spec.o_proj(blk), ("o", l), "out")]
        targets += [(mod, ("qkv", l, i), "out") for i, (mod, _) in enumerate(spec.qkv(attn))]
    hooks = {f"blocks.{l}.attn.hook_z": "all" for l in range(L)}
    hooks.update({f"blocks.{l}.attn.hook_pattern": "all" for l in range(L)})
    with capture(*targets) as got:
        out = h.run(batch(), want=("z", "heads"))
    # (a separate pass: want=("z",) reads hook_z at N only, and takes precedence over hooks=)
    full = h.run(batch(), want=(), hooks=hooks)
    B, T = batch().input_ids.shape
    for l, blk in enumerate(blocks):
        W = h.weights(l)
        assert W["W_Q"].shape == W["W_K"].shape == W["W_V"].shape == (H, D, DH)
        assert W["b_Q"].shape == W["b_K"].shape == W["b_V"].shape == (H, DH)
        assert W["W_O"].shape == (H, DH, D) and W["b_O"].shape == (D,)
        x = got["x", l].double()
        proj = {}
        for i, (_, split) in enumerate(spec.qkv(spec.attn(blk))):
            proj.update(split(got["qkv", l, i]))
        mine = {c: torch.einsum("btd,hde->bthe", x, W[f"W_{c.upper()}"].double()) + W[f"b_{c.upper()}"].double()
                for c in "qkv"}
        close(mine["q"], proj["q"], msg=f"layer {l}: x W_Q + b_Q vs the q projection")
        for c in "kv":
            for i in range(H):
                close(mine[c][:, :, i], proj[c][:, :, i // rep], msg=f"layer {l} head {i}: W_{c.upper()}")
        # z closed form from W_V / b_V and the model's own attention weights
        pat = got["pat", l].double()                                           # [B, H, T, S]
        z_cf = torch.einsum("bhts,bshe->bthe", pat, mine["v"])
        z_model = got["z", l].view(B, T, H, DH)
        close(z_cf, z_model, msg=f"layer {l}: pattern @ (x W_V + b_V) vs the output projection's input")
        close(full.hooks[f"blocks.{l}.attn.hook_z"].view(B, T, H, DH), z_model, msg=f"layer {l}: hook_z")
        close(full.hooks[f"blocks.{l}.attn.hook_pattern"], pat, msg=f"layer {l}: hook_pattern")
        close(out.z[:, l], z_model[:, -1], msg=f"layer {l}: z at N")
        # W_O / b_O: head k's slice of the output projection
        o = spec.o_proj(blk)
        w = o.weight.detach()
        for k in range(H):
            sl = w[k * DH:(k + 1) * DH, :] if type(o).__name__ == "Conv1D" else w[:, k * DH:(k + 1) * DH].T
            close(W["W_O"][k], sl, atol=0, rtol=0, msg=f"layer {l}: W_O[{k}]")
        close(W["b_O"], o.bias.detach() if o.bias is not None else torch.zeros(D), atol=0, rtol=0, msg="b_O")
        # per-head outputs in closed form
        zN = z_model[:, -1].double()                                           # [B, H, dh]
        heads = torch.einsum("bhe,hem->bhm", zN, W["W_O"].double())
        bias = W["b_O"].double().expand(B, D)
        if spec.attn_post_norm:
            norm = spec.attn_post_norm(blk)
            s = _rms_scale(got["o", l][:, -1], _eps(norm))                      # the pass's own scale
            gain = norm.weight.detach().double() + (1.0 if spec.offset_norm else 0.0)
            heads, bias = heads * s[:, None] * gain, bias * s * gain
        close(out.head_out[:, l], heads, msg=f"layer {l}: head_out closed form")
        close(out.bias_out[:, l], bias, msg=f"layer {l}: bias_out closed form")


def _z_all(h, spec, b, ivs=()):
    blocks = spec.layers(h.model)
    targets = [(spec.o_proj(blk), ("z", l), "in") for l, blk in enumerate(blocks)] + \
              [(blk, ("r", l), "in") for l, blk in enumerate(blocks)]
    with capture(*targets) as got:
        out = h.run(b, ivs=list(ivs))
    B, T = b.input_ids.shape
    return ([got["z", l].view(B, T, H, DH) for l in range(L)], [got["r", l] for l in range(L)], out.logits)


@pytest.mark.parametrize("tid", _params("head_patch"))
def test_head_patch_changes_only_what_it_names(tid):
    """4. HeadPatch sets one head's z at one position (other heads, positions and earlier layers
    unchanged); RowHeadPatch does so for a different head in each row."""
    h, spec = hooked(tid), SPECS[tid]
    b = batch()
    clean, clean_r, clean_lg = _z_all(h, spec, b)
    g = torch.Generator().manual_seed(1)
    for l, k, pos in [(1, 2, -1), (2, 0, -3), (0, 3, -2)]:
        val = torch.randn(DH, generator=g)
        z, r, lg = _z_all(h, spec, b, [HeadPatch(l, k, val, position=pos)])
        close(z[l][:, pos, k], val.expand(2, DH), atol=0, rtol=0, msg="patched value")
        mask = torch.ones(z[l].shape[:3], dtype=torch.bool)
        mask[:, z[l].shape[1] + pos, k] = False
        close(z[l][mask], clean[l][mask], atol=0, rtol=0, msg=f"layer {l}: unpatched entries")
        for j in range(l):
            close(z[j], clean[j], atol=0, rtol=0, msg=f"earlier layer {j} z")
        for j in range(l + 1):
            close(r[j], clean_r[j], atol=0, rtol=0, msg=f"resid_pre of layer {j}")
        if pos == -1 or l < L - 1:   # (a patch before N in the last layer cannot reach the logits at N)
            assert (lg - clean_lg).abs().max() > 1e-5
    # RowHeadPatch: three rows (the batch's rows and a copy of the first), one head each
    b3 = left_pad(ROWS + [ROWS[0]], 0)
    c3, c3_r, _ = _z_all(h, spec, b3)
    heads = [(1, 0), (2, 3), (1, 3)]
    vals = torch.randn(3, DH, generator=g)
    z, r, _ = _z_all(h, spec, b3, [RowHeadPatch(heads, vals)])
    for row, (l, k) in enumerate(heads):
        close(z[l][row, -1, k], vals[row], atol=0, rtol=0, msg=f"row {row}: patched value")
        mask = torch.ones(z[l].shape[1:3], dtype=torch.bool)
        mask[-1, k] = False
        close(z[l][row][mask], c3[l][row][mask], atol=0, rtol=0, msg=f"row {row}: other heads / positions")
        for j in range(l):
            close(z[j][row], c3[j][row], atol=0, rtol=0, msg=f"row {row}: earlier layer {j}")
        for j in range(l + 1):
            close(r[j][row], c3_r[j][row], atol=0, rtol=0, msg=f"row {row}: resid_pre {j}")


@pytest.mark.parametrize("tid", _params("resid_add"))
def test_resid_add_moves_only_its_layer_input(tid):
    """5. ResidAdd(l, v): resid_pre and z of layers < l as in the clean pass; layer l's input
    is the clean one plus v at exactly the named positions."""
    h, spec = hooked(tid), SPECS[tid]
    b = batch()
    clean_z, clean_r, _ = _z_all(h, spec, b)
    g = torch.Generator().manual_seed(2)
    for l, positions, per_row in [(1, (-1,), False), (2, (-1, -2), True), (0, (-4,), False)]:
        v = torch.randn((2, D) if per_row else (D,), generator=g)
        z, r, _ = _z_all(h, spec, b, [ResidAdd(l, v, positions)])
        for j in range(l):
            close(r[j], clean_r[j], atol=0, rtol=0, msg=f"resid_pre of layer {j} < {l}")
            close(z[j], clean_z[j], atol=0, rtol=0, msg=f"z of layer {j} < {l}")
        want = torch.zeros_like(clean_r[l])
        for p in positions:
            want[:, p] = v
        close(r[l] - clean_r[l], want, atol=1e-6, rtol=0, msg=f"layer {l} input moved by v at {positions}")
        assert (z[l] - clean_z[l]).abs().max() > 1e-6


@pytest.mark.parametrize("tid", _params("prefix"))
def test_prefix_continuation_equals_the_full_pass(tid):
    """6. run(batch, prefix=model.prefix(batch, start)) == run(batch), left padded; the prefix
    is reusable (not consumed)."""
    h = hooked(tid)
    b = batch()
    T = b.input_ids.shape[1]
    want = ("logits", "z", "heads", "attn")
    full = h.run(b, want=want)
    assert torch.allclose(full.logits, hf_logits(h.model, b), atol=1e-5, rtol=1e-5)
    for start in (T - 1, T - 5):   # one column, and several (past Gemma 3's sliding window)
        p = h.prefix(b, start)
        for attempt in range(2):
            got = h.run(b, want=want, prefix=p)
            close(got.logits, full.logits, msg=f"start {start}, run {attempt}: logits")
            close(got.z, full.z, msg=f"start {start}, run {attempt}: z")
            close(got.head_out, full.head_out, msg=f"start {start}, run {attempt}: head_out")
            close(got.attn, full.attn, msg=f"start {start}, run {attempt}: attention from N")


@pytest.mark.parametrize("tid", _params("left_padding"))
def test_left_padding_leaves_results_unchanged(tid):
    """7. A row alone == the same row left padded in a batch with a longer row."""
    h = hooked(tid)
    want = ("logits", "heads", "z", "attn", "resid")
    both = h.run(batch(), want=want)
    alone = h.run(left_pad([ROWS[1]], 0), want=want)
    pad = len(ROWS[0]) - len(ROWS[1])
    for name in ("logits", "head_out", "bias_out", "z", "resid"):
        close(getattr(both, name)[1], getattr(alone, name)[0], msg=name)
    close(both.attn[1, ..., pad:], alone.attn[0], msg="attention beyond the pad columns")
    assert both.attn[1, ..., :pad].abs().max() < 1e-6, "attention to pad columns"
    close(both.logits[1], hf_logits(h.model, left_pad([ROWS[1]], 0))[0], msg="logits vs the model alone")


def _p_answer(logits, ans):
    return torch.softmax(logits.double(), -1).gather(-1, ans[:, None])[:, 0]


# The gradient check runs (a) in float64 on unpadded rows and (b) in float32 on the left-padded
# batch. (Not float64 with padding: the families' eager softmax runs in float32, where
# transformers' float64 mask minimum becomes -inf, so fully masked pad rows give NaN that 0 * NaN
# carries into every later column; that is the model's own float64 forward, not HookedModel.)
# RMS norms and the softmax compute in float32 inside the float64 model too (GPT-2 alone is
# float64 throughout), so a step of 1e-2 along a unit direction; the error is measured relative
# to the derivative's scale (observed <= 2e-3 in float64 and <= 4e-3 in float32 over all families).
ZGRAD_CASES = {"f64": (torch.float64, False, 1e-2, 1e-2), "f32": (torch.float32, True, 1e-2, 2e-2)}


@pytest.mark.parametrize("case", list(ZGRAD_CASES))
@pytest.mark.parametrize("tid", _params("zgrad"))
def test_zgrad_matches_finite_differences(tid, case):
    """8. d p(answer) / d z at N (ZGrad, grad=True), contracted with a random direction per row,
    equals a central finite difference taken by a hook registered here on the output projection
    (a wrong layer, head layout or row is off by O(1), far outside the tolerance)."""
    dtype, padded, eps, rtol = ZGRAD_CASES[case]
    spec = SPECS[tid]
    h = HookedModel(copy.deepcopy(hooked(tid).model).to(dtype), make_tokenizer())
    b = batch() if padded else left_pad([ROWS[0], ROWS[0][::-1]], 0)
    if not padded:
        b = Batch(b.input_ids)          # no mask: the unpadded path of run()
    with torch.no_grad():   # the answer: each row's second most likely token (p neither ~0 nor ~1)
        ans = h.run(b).logits.topk(2, -1).indices[:, 1]
    zg = ZGrad()
    out = h.run(b, want=("logits",), ivs=[zg], grad=True)
    p = _p_answer(out.logits, ans)
    grads = torch.autograd.grad(p.sum(), [zg.deltas[l] for l in range(L)])
    g = torch.Generator().manual_seed(3)
    blocks = spec.layers(h.model)
    kw = {} if not padded else {"attention_mask": b.attention_mask, "position_ids": b.position_ids}
    for l in range(L):
        assert grads[l].shape == (2, H * DH)
        u = torch.randn(2, H * DH, generator=g, dtype=torch.float64)
        u = u / u.norm(dim=-1, keepdim=True)
        analytic = (grads[l].double() * u).sum(-1)

        def p_at(e):
            def pre(m, args):
                x = args[0].clone()
                x[:, -1] += e * u.to(x.dtype)
                return (x,) + tuple(args[1:])
            hd = spec.o_proj(blocks[l]).register_forward_pre_hook(pre)
            try:
                with torch.no_grad():
                    lg = h.model(input_ids=b.input_ids, **kw).logits[:, -1]
            finally:
                hd.remove()
            return _p_answer(lg, ans)

        fd = (p_at(eps) - p_at(-eps)) / (2 * eps)
        assert torch.isfinite(analytic).all() and analytic.abs().min() > 1e-6, "degenerate gradient"
        close(analytic, fd, atol=rtol * analytic.abs().max().item(), rtol=rtol,
              msg=f"layer {l}: analytic vs finite difference")
        # ZGrad also keeps z at N
        with capture((spec.o_proj(blocks[l]), "z", "in")) as got:
            h.run(b)
        close(zg.z[l], got["z"][:, -1], atol=0, rtol=0, msg=f"layer {l}: ZGrad.z")


@pytest.mark.parametrize("tid", _params("unembed"))
def test_unembedding_closed_form(tid):
    """9. logits at N == (x s) unembed()^T + unembed_bias(), x = resid[:, -1] (the final norm's
    input), s = 1/rms(x) or 1/std(x) with the norm's own eps; tanh soft cap where configured.
    For LayerNorm families the rows of unembed() are centred (sum to 0)."""
    h, spec = hooked(tid), SPECS[tid]
    norm = spec.final_norm(h.model)
    with capture((norm, "x", "in")) as got:
        out = h.run(batch(), want=("resid", "logits"))
    x = out.resid[:, -1].double()
    close(x, got["x"][:, -1], atol=0, rtol=0, msg="resid[:, -1] is the final norm's input")
    if spec.layernorm:
        s = torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + _eps(norm))
    else:
        s = _rms_scale(x, _eps(norm))
    U, c = h.unembed().double(), h.unembed_bias().double()
    assert U.shape == (V, D) and c.shape == (V,)
    logits = (x * s) @ U.T + c
    cap = getattr(h.model.config, "final_logit_softcapping", None)
    if cap:
        logits = torch.tanh(logits / cap) * cap
    close(out.logits, logits, atol=1e-5, rtol=1e-5, msg="closed-form logits")
    close(out.logits, hf_logits(h.model, batch()), msg="run() logits vs the model's own")
    close(h.logits_from_resid(out.resid[:, -1]), out.logits, msg="logits_from_resid")
    # log p(token) taken vocab block by block (blocks of 7 do not divide V: a short last block)
    tok = torch.tensor([5, V - 1])
    want = torch.log_softmax(out.logits.double(), -1).gather(1, tok[:, None])[:, 0]
    for chunk in (7, V):
        close(h.token_logprobs_from_resid(out.resid[:, -1], tok, vocab_chunk=chunk), want, atol=1e-6, rtol=0,
              msg=f"token_logprobs_from_resid, blocks of {chunk}")
    close(h.token_logprobs_from_resid(out.resid[:, -1], 9), torch.log_softmax(out.logits.double(), -1)[:, 9],
          atol=1e-6, rtol=0, msg="one token for every row")
    if spec.layernorm:
        assert U.sum(-1).abs().max() < 1e-5, "LayerNorm unembedding rows must be centred"
        assert c.abs().max() > 1e-3, "the final LayerNorm bias is exercised"


@pytest.mark.parametrize("tid", _params("replay"))
def test_replay_equals_the_full_run(tid):
    """10. Blocks < first replayed from block_out give the same result as running them; the
    model's block list is the original afterwards."""
    h, spec = hooked(tid), SPECS[tid]
    b = batch()
    before = spec.layers(h.model)
    full = h.run(b, want=("logits", "block_out"))
    outs = full.extras["block_out"]
    assert len(outs) == L and outs[0].shape == (2, b.input_ids.shape[1], D)
    g = torch.Generator().manual_seed(4)
    for ivs, first in [([HeadAblation([(2, 1)], "zero")], 2), ([ResidAdd(2, torch.randn(D, generator=g))], 2),
                       ([HeadAblation([(1, 3)], "zero")], 1), ([], 3)]:
        ref = h.run(b, ivs=ivs)
        got = h.run(b, ivs=ivs, replay=(outs, first))
        close(got.logits, ref.logits, msg=f"replay from {first} with {ivs}")
        after = spec.layers(h.model)
        assert len(after) == len(before) and all(a is o for a, o in zip(after, before)), "block list changed"
    close(h.run(b).logits, full.logits, atol=0, rtol=0, msg="a plain run after replays")


@pytest.mark.parametrize("tid", _params("fv_fast"))
def test_fv_fast_path_equals_the_per_head_loop(tid):
    """11. fv_scores_fast (every row a branch of one prefix cache, rows of layer l joining at
    block l, `run(grow=...)`) == fv_scores_reference (a full pass per prompt and head),
    with chunks that split and that span layers; the prefix that branches continued is unchanged."""
    from icl_heads.fv import fv_scores_fast, fv_scores_reference
    from icl_heads.prompts import Prompt

    h = hooked(tid)
    g = torch.Generator().manual_seed(7)
    prompts = [Prompt(index=i, text="", input_ids=r, answer="", answer_token=a)
               for i, (r, a) in enumerate(zip(ROWS, (22, 13)))]
    means = torch.randn(L, H, DH, generator=g) * 2
    ref = fv_scores_reference(h, prompts, means)
    assert ref.abs().max() > 1e-3  # the patches move p(answer)
    for chunk in (H - 1, 2 * H, L * H):
        close(fv_scores_fast(h, prompts, means, chunk=chunk), ref, atol=1e-5, rtol=0, msg=f"chunk {chunk}")
    b = Batch(torch.tensor([ROWS[0]]))
    T = b.input_ids.shape[1]
    p = h.prefix(b, T - 1)
    keys = [layer.keys.clone() for layer in p.cache.layers]
    k = 3
    got = h.run(b.repeat_interleave(k), prefix=p, branches=True).logits
    close(got, h.run(b).logits.expand(k, -1), msg="branches of one prefix")
    for layer, before in zip(p.cache.layers, keys):
        assert torch.equal(layer.keys, before), "a continuation changed the shared prefix"


@pytest.mark.parametrize("tid", _params("shared_eval"))
def test_shared_evaluation_equals_a_pass_per_condition(tid):
    """12. evaluate(share=...) == evaluate(share="none") on a left-padded batch: additions at N of
    every layer (columns and layers both shared), a head ablation at every position (column 0:
    only the layers below it are shared) and the clean condition, together and alone; and with
    `limits` (some conditions on the first n prompts only) against a call on those n alone."""
    from icl_heads.model import evaluate
    from icl_heads.prompts import Prompt

    h = hooked(tid)
    g = torch.Generator().manual_seed(11)
    prompts = [Prompt(index=i, text="", input_ids=r, answer="", answer_token=22) for i, r in enumerate(ROWS)]
    adds = {f"add{l}": [ResidAdd(l, torch.randn(D, generator=g) * 3)] for l in range(L)}
    # conditions that start at the same block run stacked in one pass: two more additions at
    # every layer, a second ablation starting at block 1, and one that frozen-norm families
    # rescale (its per-pass state must stay its own)
    same = {f"add{l}_{i}": [ResidAdd(l, torch.randn(D, generator=g) * 3)] for l in range(L) for i in range(2)}
    mixed = {**adds, **same, "ablate": [HeadAblation([(1, 2), (2, 0)], "zero")],
             "ablate2": [HeadAblation([(1, 0)], "zero")], "clean": []}
    for conds in (adds, mixed):
        alone = evaluate(h, prompts, [22, 13], conds, share="none", batch_size=2, stack_rows=1)
        for share in ("none", "layers", "columns", "both"):
            for stack in (1, 4, 64):
                if share == "none" and stack == 1:
                    continue
                got = evaluate(h, prompts, [22, 13], conds, share=share, batch_size=2, stack_rows=stack)
                for k in conds:
                    close(got[k].logp_answer, alone[k].logp_answer, msg=f"{share}, stack {stack}: {k}")
                    close(got[k].logp_label_set, alone[k].logp_label_set, msg=f"{share}, stack {stack}: {k} label set")
    # limits: a condition on the first n prompts only equals a call on those n alone; the prompts
    # are cut at 1 and 3, and each range runs the conditions that reach it together
    more = prompts + [Prompt(index=2, text="", input_ids=ROWS[0][:6], answer="", answer_token=13),
                      Prompt(index=3, text="", input_ids=ROWS[1][:4] + [9, 3], answer="", answer_token=22)]
    part = {k: mixed[k] for k in ("add0", "add1", "ablate", "ablate2", "clean")}
    lim = {"ablate": 3, "add1": 1, "clean": 10}
    got = evaluate(h, more, [22, 13], part, share="both", batch_size=2, limits=lim)
    for k, c in part.items():
        n = min(lim.get(k, len(more)), len(more))
        want = evaluate(h, more[:n], [22, 13], {k: c}, share="none", batch_size=2)[k]
        assert len(got[k].correct) == n, k
        close(got[k].logp_answer, want.logp_answer, msg=f"limits: {k}")
        close(got[k].logp_label_set, want.logp_label_set, msg=f"limits: {k} label set")
    few = evaluate(h, more, [22, 13], {"clean": [], "ablate": part["ablate"]}, share="layers", limits={"clean": 2, "ablate": 3})
    assert [len(few[k].correct) for k in ("clean", "ablate")] == [2, 3]   # no condition reaches the 4th prompt
    with pytest.raises(ValueError, match="not evaluated"):
        evaluate(h, more, [22, 13], part, limits={"nope": 1})
    moved = max((evaluate(h, prompts, None, {k: c}, share="none")[k].logp_answer
                 - evaluate(h, prompts, None, {"clean": []}, share="none")["clean"].logp_answer).abs().max() for k, c in adds.items())
    assert moved > 1e-3  # the additions change the answer's probability


@pytest.mark.parametrize("tid", _params("branches"))
def test_branches_equal_a_full_pass_per_row(tid):
    """13. run(rows, prefix=one row's prefix, branches=True): rows that share every column but the
    last, run as columns of one sequence under a 4-D mask == one plain full pass per row (and
    the same for two left-padded prompts with k branches each), with a
    different final token per row, a per-row head patch and an addition at one layer, a replay of
    the blocks below it, and the prefix's row left padded (the mask must hide the padding and,
    for the sliding-window families, the columns outside the window). The prefix is left as it
    was (reusable), and a wrong call is refused."""
    h = hooked(tid)
    g = torch.Generator().manual_seed(3)
    for row, pad in ((ROWS[0], 0), (ROWS[1], 3)):
        ids = [0] * pad + row
        mask = [0] * pad + [1] * len(row)
        finals = [row[-1], 7, 40, 3]
        k = len(finals)
        rows = torch.tensor([ids[:-1] + [t] for t in finals])
        b = Batch(rows, torch.tensor([mask] * k))
        one = Batch(rows[:1], torch.tensor([mask]))
        T = rows.shape[1]
        heads = [(0, 1), (1, 0), (L - 1, H - 1), (1, 2)]
        vals = torch.randn(k, DH, generator=g) * 2
        vec = torch.randn(k, D, generator=g)
        ivs = [RowHeadPatch(heads, vals), ResidAdd(1, vec)]
        want = ("logits", "z", "resid")
        ref = [h.run(Batch(rows[i:i + 1], torch.tensor([mask])), want=want,
                     ivs=[RowHeadPatch(heads[i:i + 1], vals[i:i + 1]), ResidAdd(1, vec[i:i + 1])])
               for i in range(k)]
        p = h.prefix(one, T - 1)
        keys = [layer.keys.clone() for layer in p.cache.layers]
        for attempt in range(2):
            got = h.run(b, want=want, ivs=ivs, prefix=p, branches=True)
            for name in want:
                close(getattr(got, name), torch.cat([getattr(r, name) for r in ref]),
                      msg=f"pad {pad}, run {attempt}: {name}")
        for layer, before in zip(p.cache.layers, keys):
            assert torch.equal(layer.keys, before), "branches changed the shared prefix"
        # the blocks below 1 replayed from a clean pass of the shared final column give the same
        clean = h.run(one, want=("block_out",), prefix=p, keep=torch.zeros(0, dtype=torch.long))
        rec = [o.expand(k, *o.shape[1:]) for o in clean.extras["block_out"][:1]]
        same = Batch(rows[:1].expand(k, -1), torch.tensor([mask] * k))
        above = [(1, 0), (L - 1, H - 1), (1, 2), (2, 1)]   # heads of layers >= 1: the replay below 1 keeps them
        got = h.run(same, ivs=[RowHeadPatch(above, vals), ResidAdd(1, vec)], prefix=p, branches=True, replay=(rec, 1))
        close(got.logits, torch.cat([h.run(one, ivs=[RowHeadPatch(above[i:i + 1], vals[i:i + 1]),
                                                    ResidAdd(1, vec[i:i + 1])]).logits for i in range(k)]),
              msg=f"pad {pad}: replay below block 1")
    # two prompts of different lengths, left padded, k branches each (rows r * k + j)
    b2 = batch()
    T = b2.input_ids.shape[1]
    finals = [7, 40, 3]
    k = len(finals)
    rows = torch.cat([torch.cat([b2.input_ids[r:r + 1, :-1].expand(k, -1), torch.tensor(finals)[:, None]], 1)
                      for r in range(2)])
    masks = b2.attention_mask.repeat_interleave(k, 0)
    heads = [(0, 1), (1, 0), (L - 1, H - 1)] * 2
    vals = torch.randn(2 * k, DH, generator=g) * 2
    vec = torch.randn(2 * k, D, generator=g)
    got = h.run(Batch(rows, masks), want=("logits", "z"), ivs=[RowHeadPatch(heads, vals), ResidAdd(1, vec)],
                prefix=h.prefix(b2, T - 1), branches=True)
    for i in range(2 * k):
        keep = masks[i].bool()
        ref = h.run(Batch(rows[i:i + 1, keep]), want=("logits", "z"),
                    ivs=[RowHeadPatch(heads[i:i + 1], vals[i:i + 1]), ResidAdd(1, vec[i:i + 1])])
        close(got.logits[i:i + 1], ref.logits, msg=f"two prompts, row {i}: logits")
        close(got.z[i:i + 1], ref.z, msg=f"two prompts, row {i}: z")
    with pytest.raises(ValueError, match="share every column"):
        h.run(Batch(torch.tensor([ROWS[0], ROWS[0][::-1]])), prefix=h.prefix(Batch(torch.tensor([ROWS[0]])), 8),
              branches=True)
    with pytest.raises(ValueError, match="attention patterns"):
        h.run(Batch(torch.tensor([ROWS[0]] * 2)), want=("attn",), prefix=h.prefix(Batch(torch.tensor([ROWS[0]])), 8),
              branches=True)


@pytest.mark.parametrize("tid", _params("grow"))
def test_grow_equals_every_branch_at_every_block(tid):
    """14. run(branches=True, grow=...): row 0 unpatched and rows patched (a head at N) at layers
    0..L-1 in layer order, each joining the pass at its layer == the same branches with every
    block running every row, on an unpadded and a left-padded prompt (the cut 4-D mask must keep
    the padding and sliding windows hidden); the block list is the original afterwards, and
    a grow that is not a pass or a read at a cut block is refused."""
    h, spec = hooked(tid), SPECS[tid]
    before = spec.layers(h.model)
    g = torch.Generator().manual_seed(11)
    heads = [(0, 2), (0, 0), (1, 3), (2, 1), (2, 2)]             # in layer order
    k = 1 + len(heads)
    grow = [1 + sum(1 for ll, _ in heads if ll <= l) for l in range(L)]
    vals = torch.randn(len(heads), DH, generator=g) * 2
    fin = f"blocks.{L - 1}.hook_resid_post"
    last = {fin: "last"}
    for row, pad in ((ROWS[0], 0), (ROWS[1], 3)):
        ids, mask = [0] * pad + row, [0] * pad + [1] * len(row)
        b = Batch(torch.tensor([ids] * k), torch.tensor([mask] * k))
        p = h.prefix(Batch(torch.tensor([ids]), torch.tensor([mask])), len(ids) - 1)
        iv = [RowHeadPatch(heads, vals, first_row=1)]
        full = h.run(b, ivs=iv, hooks=last, prefix=p, branches=True)
        got = h.run(b, ivs=iv, hooks=last, prefix=p, branches=True, grow=grow)
        close(got.logits, full.logits, msg=f"pad {pad}: logits")
        close(got.hooks[fin], full.hooks[fin], msg=f"pad {pad}: final residual")
        assert (got.logits[1:] - got.logits[0]).abs().max() > 1e-3, "the patches change the rows"
        single = h.run(Batch(torch.tensor([ids]), torch.tensor([mask])),
                       ivs=[HeadPatch(*heads[2], vals[2], position=-1)]).logits
        close(got.logits[3:4], single, msg=f"pad {pad}: row 3 == its own full pass")
        after = spec.layers(h.model)
        assert all(a is o for a, o in zip(after, before)), "block list changed"
        for bad in (grow[:-1], [0] + grow[1:], grow[:-1] + [k + 1], [3, 2] + grow[2:]):
            with pytest.raises(ValueError, match="grow"):
                h.run(b, ivs=iv, prefix=p, branches=True, grow=bad)
        with pytest.raises(ValueError, match="read"):
            h.run(b, ivs=iv, hooks={"blocks.0.hook_resid_post": "last"}, prefix=p, branches=True, grow=grow)
        with pytest.raises(ValueError, match="branches"):
            h.run(b, grow=grow)
