"""Can TransformerLens 4's TransformerBridge serve as this project's model layer?

Every number is measured in this one run, on random models built here from transformers
config classes (no hub, HF_HUB_OFFLINE=1). Per family it prints:

- whether TL loads the model offline, two ways: `TransformerBridge.boot_transformers(dir)`
  (TL loads a local save_pretrained directory itself) and
  `TransformerBridge.boot_transformers(dir, hf_model=model, tokenizer=tok)` (TL wraps an
  already-loaded model in place; the tokenizer must have been loaded from a directory,
  because TL reloads it from `tokenizer.name_or_path` to switch on add_bos_token);
- the median wall time of one left-padded batch, as ratios measured in this run against a
  plain HF forward (eager attention, logits_to_keep=1, no hooks):
    ours  = the project's model layer, HookedModel.run(batch, want=("heads", "attn", "resid",
            "logits")) (icl_heads.model; HookedLM of icl_heads.hooked before the rewrite);
    TL    = bridge.run_with_cache(...) reading hook_z, hook_pattern, hook_resid_pre and
            ln_final.hook_in at the final position (pos_slice=-1), with final-position logits,
            plus the per-head z @ W_O product `ours` computes too;
    TLfwd = bridge(...) with no hooks at all (the cost of the bridge's re-implemented attention);
    TL/ours = the two directly;
- max |difference| of z and of the final-row attention pattern between TL and ours (where
  ours refuses a family, z is compared with a pre-hook on the plain model's output projection),
  and of TL's final-position logits against the plain model's;
- KV-cache continuation: max |logits difference| of a bridge forward over 16 new tokens that
  continues a 48-token HF cache, against one full forward pass (0 means it works).

Threads default to 1: on a busy 2-core machine two OpenMP threads made a matmul 4x slower.
The small-batch regime (per-prompt and cached decoding steps) is
    .venv/bin/python benchmarks/bench_transformer_lens.py --batch 1 --tokens 32 --repeat 25

    .venv/bin/python benchmarks/bench_transformer_lens.py [--threads 1] [--repeat 7]
        [--hidden 256] [--layers 6] [--batch 8] [--tokens 64] [--families llama,gpt2]
"""
from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse  # noqa: E402
import copy  # noqa: E402
import logging  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:  # the project's model layer (icl_heads.model; icl_heads.hooked before the rewrite)
    from icl_heads.model import HookedModel as HookedLM, left_pad  # noqa: E402
except ImportError:
    from icl_heads.hooked import HookedLM, left_pad  # noqa: E402

import transformers  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedTokenizerFast  # noqa: E402

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
transformers.utils.logging.disable_progress_bar()
logging.getLogger("transformer_lens").setLevel(logging.ERROR)

VOCAB = 1000
WANT = ("heads", "attn", "resid", "logits")


def families(h: int, n_layers: int, n_heads: int) -> dict:
    common = dict(vocab_size=VOCAB, hidden_size=h, intermediate_size=2 * h, num_hidden_layers=n_layers,
                  num_attention_heads=n_heads, num_key_value_heads=max(1, n_heads // 2),
                  max_position_embeddings=512, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                  attn_implementation="eager")
    hd = h // n_heads
    return {
        "llama": lambda: transformers.LlamaConfig(**common),
        "mistral": lambda: transformers.MistralConfig(**common),
        "qwen2": lambda: transformers.Qwen2Config(**common),
        "qwen3": lambda: transformers.Qwen3Config(head_dim=hd, **common),
        "gemma": lambda: transformers.GemmaConfig(head_dim=hd, **common),
        "gemma2": lambda: transformers.Gemma2Config(head_dim=hd, **common),
        "gemma3": lambda: transformers.Gemma3TextConfig(head_dim=hd, **common),
        "phi3": lambda: transformers.Phi3Config(**common),
        "olmo2": lambda: transformers.Olmo2Config(**common),
        "gpt2": lambda: transformers.GPT2Config(vocab_size=VOCAB, n_embd=h, n_layer=n_layers, n_head=n_heads,
                                                n_positions=512, bos_token_id=1, eos_token_id=2,
                                                pad_token_id=0, attn_implementation="eager"),
        "gpt_neox": lambda: transformers.GPTNeoXConfig(vocab_size=VOCAB, hidden_size=h, intermediate_size=2 * h,
                                                       num_hidden_layers=n_layers, num_attention_heads=n_heads,
                                                       max_position_embeddings=512, bos_token_id=1, eos_token_id=2,
                                                       pad_token_id=0, attn_implementation="eager"),
    }


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {f"t{i}": i for i in range(VOCAB)}
    vocab.update({"<pad>": 0, "<s>": 1, "</s>": 2})
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="t3"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>", unk_token="t3")


def short_error(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    return f"{type(e).__name__}: {msg[:160]}"


def out_proj(model, layer: int):
    """The plain model's attention output projection of one layer (its input is z)."""
    base = getattr(model, "model", None) or getattr(model, "transformer", None) or getattr(model, "gpt_neox")
    blocks = getattr(base, "layers", None) or getattr(base, "h")
    blk = blocks[layer]
    attn = getattr(blk, "self_attn", None) or getattr(blk, "attn", None) or getattr(blk, "attention")
    for name in ("o_proj", "c_proj", "dense"):
        if hasattr(attn, name):
            return getattr(attn, name)
    raise AttributeError("no output projection")


def median_times(fns: dict, repeat: int, warmup: int = 2) -> dict:
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {k: [] for k in fns}
    for _ in range(repeat):  # interleaved, so drift hits every variant alike
        for k, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def bench_family(name: str, make_cfg, args, TransformerBridge, workdir: str) -> str:
    torch.manual_seed(0)
    cfg = make_cfg()
    base = AutoModelForCausalLM.from_config(cfg).eval()
    tmp = tempfile.mkdtemp(prefix=f"{name}_", dir=workdir)
    base.save_pretrained(tmp)
    tiny_tokenizer().save_pretrained(tmp)
    tok = AutoTokenizer.from_pretrained(tmp)
    L = cfg.num_hidden_layers if hasattr(cfg, "num_hidden_layers") else cfg.n_layer

    # 1. loading, offline, two ways
    try:
        TransformerBridge.boot_transformers(tmp, device="cpu")
        from_dir = "yes"
    except Exception as e:  # noqa: BLE001
        from_dir = "NO (" + short_error(e) + ")"
    t0 = time.perf_counter()
    try:
        bridge = TransformerBridge.boot_transformers(tmp, hf_model=copy.deepcopy(base), tokenizer=tok, device="cpu")
        wrap = "yes"
    except Exception as e:  # noqa: BLE001
        bridge, wrap = None, "NO (" + short_error(e) + ")"
    t_boot = time.perf_counter() - t0

    try:
        hooked = HookedLM(copy.deepcopy(base), tok, name=name)
        hooked_err = None
    except Exception as e:  # noqa: BLE001
        hooked, hooked_err = None, short_error(e)

    # a left-padded batch: lengths spread over [tokens/2, tokens]
    g = torch.Generator().manual_seed(1)
    lens = torch.linspace(args.tokens // 2, args.tokens, args.batch).round().long().tolist()
    rows = [torch.randint(3, VOCAB, (n,), generator=g).tolist() for n in lens]
    batch = left_pad(rows, 0)
    ids, mask, pos = batch.input_ids, batch.attention_mask, batch.position_ids
    kw = dict(attention_mask=mask, position_ids=pos, use_cache=False, logits_to_keep=1)

    @torch.no_grad()
    def plain():
        return base(input_ids=ids, **kw).logits[:, -1].float()

    fns = {"plain": plain}
    if hooked is not None:
        fns["ours"] = torch.no_grad()(lambda: hooked.run(batch, want=WANT))

    if bridge is not None:
        names = {f"blocks.{l}.{s}" for l in range(L) for s in ("attn.hook_z", "attn.hook_pattern", "hook_resid_pre")}
        names.add("ln_final.hook_in")
        W_O = bridge.W_O.detach()  # [L, H, d_head, d_model]

        @torch.no_grad()
        def tl_cache():
            logits, cache = bridge.run_with_cache(ids, names_filter=lambda n: n in names, pos_slice=-1, **kw)
            z = torch.stack([cache[f"blocks.{l}.attn.hook_z"][:, -1] for l in range(L)], 1)
            attn = torch.stack([cache[f"blocks.{l}.attn.hook_pattern"][:, :, -1] for l in range(L)], 1)
            resid = torch.stack([cache[f"blocks.{l}.hook_resid_pre"][:, -1] for l in range(L)]
                                + [cache["ln_final.hook_in"][:, -1]], 1)
            head_out = torch.einsum("blhd,lhdm->blhm", z, W_O)
            return logits[:, -1].float(), z, attn, resid, head_out

        fns["tl"] = tl_cache
        fns["tlfwd"] = torch.no_grad()(lambda: bridge(ids, **kw))

    t = median_times(fns, args.repeat)

    # numerics
    ref_logits = plain()
    parts = [f"{name:<9}", f"loads: dir {from_dir[:3]:<3} hf_model= {wrap[:3]:<3}"]
    errs = []
    if not from_dir.startswith("yes"):
        errs.append("dir: " + from_dir)
    if not wrap.startswith("yes"):
        errs.append("hf_model=: " + wrap)
    if bridge is not None:
        tl_logits, tl_z, tl_attn, tl_resid, _ = fns["tl"]()
        parts.append(f"plain {t['plain'] * 1e3:4.0f} ms  TL/plain {t['tl'] / t['plain']:5.2f}x  "
                     f"TLfwd/plain {t['tlfwd'] / t['plain']:5.2f}x")
    else:
        parts.append(f"plain {t['plain'] * 1e3:4.0f} ms  TL/plain    n/a  TLfwd/plain    n/a")
    if hooked is not None:
        parts.append(f"ours/plain {t['ours'] / t['plain']:5.2f}x")
        if bridge is not None:
            parts.append(f"TL/ours {t['tl'] / t['ours']:5.2f}x")
    else:
        parts.append("ours/plain   n/a")
    if bridge is not None:
        if hooked is not None:
            r = hooked.run(batch, want=WANT)
            dz = float((tl_z - r.z).abs().max())
            da = float((tl_attn - r.attn).abs().max())
            parts.append(f"|dz| {dz:.1e} |dattn| {da:.1e}")
        else:
            zs = [None] * L
            hs = [out_proj(base, l).register_forward_pre_hook(
                lambda m, a, l=l: zs.__setitem__(l, a[0][:, -1].detach())) for l in range(L)]
            plain()
            for hnd in hs:
                hnd.remove()
            ref_z = torch.stack(zs, 1).view_as(tl_z)
            parts.append(f"|dz| {float((tl_z - ref_z).abs().max()):.1e} (vs plain pre-hook) ")
        parts.append(f"|dlogits| {float((tl_logits - ref_logits).abs().max()):.1e}")
        # KV-cache continuation: HF cache over 48 tokens, bridge over the next 16
        full = torch.randint(3, VOCAB, (2, 64), generator=g)
        with torch.no_grad():
            want_logits = base(input_ids=full, use_cache=False).logits[:, 48:]
            hf_cache = base(input_ids=full[:, :48], use_cache=True)
            hf_cache = getattr(hf_cache, "cache", None) or hf_cache.past_key_values
            got = bridge(full[:, 48:], past_key_values=hf_cache)
        parts.append(f"KV-continue |d| {float((got - want_logits).abs().max()):.1e}")
        parts.append(f"boot {t_boot:.1f}s")
    if hooked_err:
        errs.append("HookedLM: " + hooked_err)
    line = "  ".join(parts)
    if errs:
        line += "\n          " + "; ".join(errs)
    return line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--families", default="")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    t_start = time.perf_counter()
    t = time.perf_counter()
    try:
        from transformer_lens.model_bridge import TransformerBridge
    except ImportError as e:
        print(f"transformer_lens is not installed ({e}): nothing to measure")
        return
    t_import = time.perf_counter() - t
    from importlib.metadata import version

    print(f"TransformerLens {version('transformer-lens')}"
          f" (import {t_import:.1f} s), transformers {transformers.__version__}, torch {torch.__version__}, "
          f"threads {torch.get_num_threads()}")
    print(f"random models: hidden {a.hidden}, {a.layers} layers, {a.heads} heads (GQA {a.heads}:{max(1, a.heads // 2)} "
          f"where the family has it), vocab {VOCAB}, fp32, eager attention; batch {a.batch} left-padded rows of "
          f"{a.tokens // 2}-{a.tokens} tokens; median of {a.repeat} interleaved runs")
    try:  # HookedTransformer was removed in TL 4.0: record it rather than assume it
        from transformer_lens import HookedTransformer  # noqa: F401
        print("HookedTransformer: importable")
    except ImportError as e:
        print("HookedTransformer: not importable: " + " ".join(str(e).split()).split(". ")[0])
    fams = families(a.hidden, a.layers, a.heads)
    chosen = [f for f in a.families.split(",") if f] or list(fams)
    with tempfile.TemporaryDirectory(prefix="bench_tl_") as workdir:
        for name in chosen:
            try:
                print(bench_family(name, fams[name], a, TransformerBridge, workdir), flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"{name:<9}  benchmark failed: {short_error(e)}", flush=True)
    print(f"total {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
