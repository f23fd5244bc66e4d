"""Architecture adapters: where each hook point and weight of a decoder family lives in its
Hugging Face module tree, and how its norms and biases behave. One small declarative record
per family; `HookedModel` reads nothing else about the architecture.

Why hand-written and not TransformerLens 4's adapters: see the README ("Model layer") for the
measurement; in short the bridge re-wraps every module and costs more per forward pass than
plain hooks on the Hugging Face modules, while these records keep the model's own kernels,
key/value cache and left padding untouched.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError

# How the query/key/value projections are stored:
#   "separate": q_proj, k_proj, v_proj (nn.Linear, weight [out, in])
#   "gpt2":     one Conv1D c_attn, weight [d_model, 3 * d_model], columns q | k | v
#   "neox":     one nn.Linear query_key_value, output laid out per head as [H, (q, k, v), d_head]
#   "phi3":     one nn.Linear qkv_proj, output rows q (H * d_head) | k (H_kv * d_head) | v (H_kv * d_head)
QKV_LAYOUTS = ("separate", "gpt2", "neox", "phi3")
# Norm kinds: "rms" (x / rms * w), "rms_offset" (x / rms * (1 + w), Gemma), "layernorm" ((x - mean) / std * w + b).
NORM_KINDS = ("rms", "rms_offset", "layernorm")


@dataclass(frozen=True)
class Adapter:
    family: str
    blocks: str                      # path from the CausalLM to the ModuleList of blocks
    attn: str                        # attention module, relative to a block
    o_proj: str                      # output projection W_O (+ b_O), relative to a block
    qkv: str                         # one of QKV_LAYOUTS
    qkv_module: str                  # relative to the attention module ("" for separate)
    ln_attn: str | None              # norm before attention (None: attention reads the raw stream, OLMo 2)
    ln_mlp: str | None               # norm before the MLP (None: the MLP reads the raw stream)
    mlp: str                         # MLP module, relative to a block
    ln_final: str                    # final norm, relative to the CausalLM
    norm: str                        # one of NORM_KINDS (every norm of the family)
    ln_attn_post: str | None = None  # norm on the attention output before it joins the stream (Gemma 2/3, OLMo 2)
    ln_mlp_post: str | None = None   # norm on the MLP output (Gemma 2/3, OLMo 2)
    o_conv1d: bool = False           # W_O stored as a Conv1D ([in, out]) rather than a Linear ([out, in])
    parallel: bool = False           # attention and MLP both read resid_pre (GPT-NeoX use_parallel_residual)
    qk_norm: bool = False            # a norm on queries and keys after their projection (Qwen3, OLMo 2, Gemma 3)
    softcap_attr: str | None = None  # config attribute of the final-logit soft cap (Gemma 2/3)

    def __post_init__(self):
        if self.qkv not in QKV_LAYOUTS or self.norm not in NORM_KINDS:
            raise ValueError(f"adapter {self.family}: bad qkv {self.qkv!r} or norm {self.norm!r}")


_LLAMA = dict(blocks="model.layers", attn="self_attn", o_proj="self_attn.o_proj", qkv="separate", qkv_module="",
              ln_attn="input_layernorm", ln_mlp="post_attention_layernorm", mlp="mlp", ln_final="model.norm", norm="rms")
_GEMMA2 = dict(_LLAMA, norm="rms_offset", ln_mlp="pre_feedforward_layernorm", ln_attn_post="post_attention_layernorm",
               ln_mlp_post="post_feedforward_layernorm", softcap_attr="final_logit_softcapping")

ADAPTERS: dict[str, Adapter] = {
    # Llama 2 / 3.x, Yi, SmolLM2 (model_type llama); Mistral; Qwen2 / 2.5 (bias on q, k, v only)
    "llama": Adapter("llama", **_LLAMA),
    "mistral": Adapter("mistral", **_LLAMA),
    "qwen2": Adapter("qwen2", **_LLAMA),
    "qwen3": Adapter("qwen3", **dict(_LLAMA, qk_norm=True)),
    "gemma": Adapter("gemma", **dict(_LLAMA, norm="rms_offset")),
    "gemma2": Adapter("gemma2", **_GEMMA2),
    "gemma3_text": Adapter("gemma3_text", **dict(_GEMMA2, qk_norm=True)),
    "phi3": Adapter("phi3", **dict(_LLAMA, qkv="phi3", qkv_module="qkv_proj")),
    # OLMo 2: norms after attention and after the MLP only, q/k norms over all heads
    "olmo2": Adapter("olmo2", **dict(_LLAMA, ln_attn=None, ln_mlp=None, ln_attn_post="post_attention_layernorm",
                                     ln_mlp_post="post_feedforward_layernorm", qk_norm=True)),
    "gpt2": Adapter("gpt2", blocks="transformer.h", attn="attn", o_proj="attn.c_proj", qkv="gpt2", qkv_module="c_attn",
                    ln_attn="ln_1", ln_mlp="ln_2", mlp="mlp", ln_final="transformer.ln_f", norm="layernorm", o_conv1d=True),
    "gpt_neox": Adapter("gpt_neox", blocks="gpt_neox.layers", attn="attention", o_proj="attention.dense", qkv="neox",
                        qkv_module="query_key_value", ln_attn="input_layernorm", ln_mlp="post_attention_layernorm",
                        mlp="mlp", ln_final="gpt_neox.final_layer_norm", norm="layernorm"),
}
# config.model_type values that share a record
ALIASES = {"gemma3": "gemma3_text"}


UNEMBED_DEFINITION = {
    False: "W_U with the final-norm gain folded in; the norm's 1/rms is a positive per-prompt factor, left out",
    True: "W_U with the final-norm gain folded in and each row centred over d_model (the final LayerNorm subtracts "
          "the mean, so logits = U_eff x / std(x) + c); its bias and the unembedding bias give the prompt-independent "
          "constant c = W_U b_ln + b_U (`unembed_bias`); 1/std is a positive per-prompt factor, left out; the label "
          "subspace is spanned by the rows of U_eff of the label tokens"}


def describe(ad: Adapter) -> dict:
    """The model layer's choices for a family, as written into every provenance record."""
    return {"family": ad.family, "norm": ad.norm, "parallel_attn_mlp": ad.parallel,
            "post_attention_norm": ad.ln_attn_post is not None,
            "head_output": ("z W_O at N; the post-attention norm is linearised at the pass's own scale"
                            if ad.ln_attn_post else "z W_O at N") + "; b_O belongs to no head",
            "unembedding": UNEMBED_DEFINITION[ad.norm == "layernorm"]}


def adapter_for(config) -> Adapter:
    """The adapter of a transformers config (by its model_type); a clear error for others."""
    mt = getattr(config, "model_type", None)
    key = ALIASES.get(mt, mt)
    if key not in ADAPTERS:
        raise ConfigError(f"model family {mt!r} has no architecture adapter; supported: {', '.join(sorted(ADAPTERS))} "
                          "(add a record to icl_heads/model/adapters.py and run tests/test_conformance.py on it)")
    ad = ADAPTERS[key]
    if key == "gpt_neox":
        ad = Adapter(**{**ad.__dict__, "parallel": bool(getattr(config, "use_parallel_residual", True))})
    if key == "gpt2" and getattr(config, "add_cross_attention", False):
        raise ConfigError("GPT-2 with cross-attention is an encoder-decoder: only decoder-only models are supported")
    return ad


def get(module, path: str | None):
    """module.a.b.c for path 'a.b.c' (None or '' gives None / the module itself)."""
    if path is None:
        return None
    for part in filter(None, path.split(".")):
        module = getattr(module, part)
    return module
