"""The GPU check: FV scoring and T5-style ablation evaluation, then one paper-size cache pass, on
a CUDA device in bfloat16 and float32, with times and memory peaks. Self-contained: the models
are built from transformers config classes with random weights (the shapes of SmolLM2-135M,
Gemma 3 270M and Llama-3-8B), since a lent GPU machine has no hub and no materialised models;
speed and memory depend on the shapes, not on the weights. Prompts are random token ids of the
lengths the configs produce.

    python benchmarks/gpu_check.py [--quick] [--out gpu_check.json]

It needs torch with CUDA and transformers; the project itself never depends on a GPU.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from icl_heads.cache import build_cache  # noqa: E402
from icl_heads.fv import fv_scores_fast, fv_scores_reference, mean_head_z  # noqa: E402
from icl_heads.interventions import ablation, random_heads  # noqa: E402
from icl_heads.model import HookedModel, evaluate  # noqa: E402
from icl_heads.prompts import Prompt  # noqa: E402

SHAPES = {
    "smollm2-135m": ("LlamaConfig", "LlamaForCausalLM", dict(
        vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30, num_attention_heads=9,
        num_key_value_heads=3, tie_word_embeddings=True)),
    "gemma-3-270m": ("Gemma3TextConfig", "Gemma3ForCausalLM", dict(
        vocab_size=262144, hidden_size=640, intermediate_size=2048, num_hidden_layers=18, num_attention_heads=4,
        num_key_value_heads=1, head_dim=256, query_pre_attn_scalar=256, sliding_window=512)),
    "llama-3-8b": ("LlamaConfig", "LlamaForCausalLM", dict(
        vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
        num_key_value_heads=8, rope_theta=500000.0, tie_word_embeddings=False)),
    # a smoke test of this script on the CPU: --device cpu --shape tiny
    "tiny": ("LlamaConfig", "LlamaForCausalLM", dict(
        vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=4,
        num_key_value_heads=2)),
}
DEVICE = "cuda"


class _NoTokenizer:
    pad_token_id = 0
    eos_token_id = 0


def build(shape: str, dtype: torch.dtype) -> HookedModel:
    import transformers

    cfg_cls, model_cls, kw = SHAPES[shape]
    cfg = getattr(transformers, cfg_cls)(**kw, max_position_embeddings=8192, attn_implementation="eager")
    torch.manual_seed(0)
    with torch.device(DEVICE):
        model = getattr(transformers, model_cls)(cfg).to(dtype)
    return HookedModel(model, _NoTokenizer(), name=shape)


def prompts(n: int, length: int, vocab: int, seed: int) -> list[Prompt]:
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        ids = [1] + torch.randint(4, vocab, (length - 1 - i % 7,), generator=g).tolist()
        pos = list(range(8, len(ids) - 1, 16))
        out.append(Prompt(index=i, text="", input_ids=ids, answer="", answer_token=ids[pos[0]], label_positions=pos))
    return out


def timed(fn):
    gpu = DEVICE == "cuda"
    if gpu:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    t = time.perf_counter()
    out = fn()
    if gpu:
        torch.cuda.synchronize()
    return out, time.perf_counter() - t, torch.cuda.max_memory_allocated() / 2**30 if gpu else None


def check(shape: str, dtype: torch.dtype, n_fv: int, n_eval: int, length: int) -> dict:
    m = build(shape, dtype)
    V, L, H = m.cfg.vocab_size, m.n_layers, m.n_heads
    res = {"model": shape, "dtype": str(dtype).removeprefix("torch."), "prompt_tokens": length}
    clean, corr = prompts(4, length, V, 0), prompts(n_fv, length, V, 1)
    means = mean_head_z(m, clean) * 3
    fv_scores_fast(m, corr[:1], means)  # warm-up
    fast, res["fv_fast_s"], res["fv_fast_peak_gib"] = timed(lambda: fv_scores_fast(m, corr, means))
    ref, res["fv_reference_s"], _ = timed(lambda: fv_scores_reference(m, corr, means))
    res["fv_ratio"] = res["fv_reference_s"] / res["fv_fast_s"]
    res["fv_max_abs_diff"] = float((fast - ref).abs().max())
    ev = prompts(n_eval, length, V, 2)
    labs = sorted({p.answer_token for p in ev})
    k = max(1, round(0.03 * L * H))
    conds = {"baseline": [], **{f"random{i}": [ablation(random_heads(L, H, k, i), "zero")] for i in range(6)}}
    _, res["t5_shared_s"], res["t5_peak_gib"] = timed(lambda: evaluate(m, ev, labs, conds, share="layers", batch_size=16))
    _, res["t5_scratch_s"], _ = timed(lambda: evaluate(m, ev, labs, conds, share="none", batch_size=16))
    res["t5_ratio"] = res["t5_scratch_s"] / res["t5_shared_s"]
    return res


def cache_job(dtype: torch.dtype, n: int, length: int, shape: str = "llama-3-8b") -> dict:
    """One paper-size cache job: Llama-3-8B shapes, n prompts of `length` tokens (paper.yaml's
    classification prompts), every capture the cache rule stores."""
    m = build(shape, dtype)
    ps = prompts(n, length, m.cfg.vocab_size, 3)
    labs = sorted({p.answer_token for p in ps})[:2]
    build_cache(m, ps[:2], labs, batch_size=2, progress=False)
    _, t, peak = timed(lambda: build_cache(m, ps, labs, batch_size=16, progress=False))
    tokens = sum(len(p.input_ids) for p in ps)
    return {"model": shape, "dtype": str(dtype).removeprefix("torch."), "prompts": n, "tokens": tokens,
            "cache_s": t, "tokens_per_s": tokens / t, "peak_gib": peak}


def free():
    """Give the last model's memory back before the next is built (the peaks are per step)."""
    import gc

    gc.collect()
    if DEVICE == "cuda":
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer prompts (a smoke run of a minute or two)")
    ap.add_argument("--out", default="gpu_check.json")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--shape", default=None, choices=sorted(SHAPES), help="one shape for every step (default: the real ones)")
    a = ap.parse_args()
    global DEVICE
    DEVICE = a.device
    if DEVICE == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_check: no CUDA device here (torch.cuda.is_available() is False)")
    print(f"device: {torch.cuda.get_device_name() if DEVICE == 'cuda' else 'cpu'}, torch {torch.__version__}")
    n_fv, n_eval, n_cache = (1, 16, 32) if a.quick else (4, 64, 256)
    rows = []
    for dtype in (torch.bfloat16, torch.float32):
        for shape in ([a.shape] if a.shape else ["smollm2-135m", "gemma-3-270m"]):
            rows.append(check(shape, dtype, n_fv, n_eval, 96))
            print(json.dumps(rows[-1]), flush=True)
            free()
        rows.append(cache_job(dtype, n_cache, 384, a.shape or "llama-3-8b"))
        print(json.dumps(rows[-1]), flush=True)
        free()
    Path(a.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
